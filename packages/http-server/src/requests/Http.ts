import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { RequestListItem } from "@talab/contract"
import { Api, CurrentUser } from "@talab/contract"
import { queryWordsOf, RequestSettings, Requests } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/AppConfig.js"
import { respond } from "../http/Localize.js"
import { type Paged, type PageRequest, pageRequest, paginationFor } from "../http/Paging.js"
import { AttachedImages } from "../images/Attached.js"
import { makeRequestPosts } from "./Batches.js"
import { RequestQueries } from "./Queries.js"

const listResponse = (page: PageRequest) => (result: Paged<typeof RequestListItem.Type>) => ({
  requests: result.items,
  pagination: paginationFor(page, result.total)
})

const RequestsHttp = HttpApiBuilder.group(Api, "requests", (handlers) =>
  Effect.gen(function* () {
    const service = yield* Requests
    const queries = yield* RequestQueries
    const attached = yield* AttachedImages
    const post = yield* makeRequestPosts
    return handlers
      .handle("create", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const request = yield* post(user, payload)
            return yield* attached.withNewPhotos("request", request, payload.photoIds)
          })
        )
      )
      .handle("list", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          queries
            .list(
              {
                status: urlParams.status ?? "active",
                category: urlParams.category,
                locationCity: urlParams.location_city,
                query: urlParams.q === undefined ? undefined : queryWordsOf(urlParams.q),
                fitsPrice: urlParams.fits_price,
                sort: urlParams.sort
              },
              page
            )
            .pipe(Effect.map(listResponse(page)))
        )
      })
      .handle("listMine", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          Effect.flatMap(CurrentUser, ({ user }) => queries.listMine(user.id, urlParams.status, page)).pipe(
            Effect.map(listResponse(page))
          )
        )
      })
      .handle("get", ({ path }) => respond(Effect.flatMap(CurrentUser, ({ user }) => queries.detail(path.id, user.id))))
      .handle("close", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const closed = yield* service.close(user, path.id)
            return closed
          })
        )
      )
      .handle("extend", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const request = yield* service.extend(user, path.id)
            return { ...request, extendedAt: request.extendedAt ?? request.expiresAt }
          })
        )
      )
  })
)

/** Buy requests: the REST handlers with their own services. */
/** REQUEST_TTL_DAYS as core's request workflows read it. */
export const RequestSettingsLive = Layer.effect(
  RequestSettings,
  Effect.map(AppConfig, (config) => ({ ttlDays: config.requestTtlDays }))
)

export const RequestsLive = RequestsHttp.pipe(
  Layer.provide([Requests.Default.pipe(Layer.provide(RequestSettingsLive)), RequestQueries.Default])
)
