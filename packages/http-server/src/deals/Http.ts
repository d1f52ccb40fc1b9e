import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import { Deals } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { DealQueries } from "./Queries.js"
import { DealsService } from "./Service.js"

const DealsHttp = HttpApiBuilder.group(Api, "deals", (handlers) =>
  Effect.gen(function* () {
    const service = yield* DealsService
    const workflows = yield* Deals
    const queries = yield* DealQueries
    return handlers
      .handle("listMine", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          Effect.flatMap(CurrentUser, ({ user }) =>
            queries.listMine(user.id, { role: urlParams.role, status: urlParams.status }, page)
          ).pipe(Effect.map(({ items, total }) => ({ deals: items, pagination: paginationFor(page, total) })))
        )
      })
      .handle("get", ({ path }) => respond(Effect.flatMap(CurrentUser, ({ user }) => service.get(user, path.id))))
      .handle("complete", ({ path }) =>
        respond(Effect.flatMap(CurrentUser, ({ user }) => workflows.complete(user, path.id)))
      )
      .handle("cancel", ({ path, payload }) =>
        respond(Effect.flatMap(CurrentUser, ({ user }) => workflows.cancel(user, path.id, payload)))
      )
  })
)

/** Deals: the REST handlers with their own service and read queries (one instance, shared). */
export const DealsLive = DealsHttp.pipe(
  Layer.provide([Deals.Default, DealsService.DefaultWithoutDependencies.pipe(Layer.provideMerge(DealQueries.Default))])
)
