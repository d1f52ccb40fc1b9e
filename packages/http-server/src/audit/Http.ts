import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import { requireAdmin } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { AuditQueries } from "./Queries.js"

const AdminAuditHttp = HttpApiBuilder.group(Api, "adminAudit", (handlers) =>
  Effect.gen(function* () {
    const queries = yield* AuditQueries
    return handlers.handle("list", ({ urlParams }) =>
      respond(
        Effect.gen(function* () {
          const { user } = yield* CurrentUser
          yield* requireAdmin(user)
          const page = pageRequest(urlParams)
          const { items, total } = yield* queries.list(
            {
              action: urlParams.action,
              actorId: urlParams.actor_id,
              targetId: urlParams.target_id,
              from: urlParams.from,
              to: urlParams.to
            },
            page
          )
          return { entries: items, pagination: paginationFor(page, total) }
        })
      )
    )
  })
)

/** The audit log's read by admins. */
export const AuditLive = AdminAuditHttp.pipe(Layer.provide(AuditQueries.Default))
