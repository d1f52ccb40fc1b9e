import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import { requireAdmin, requireFound } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { respond } from "../http/Localize.js"
import { AdminUserQueries } from "./AdminQueries.js"

const AdminUsersHttp = HttpApiBuilder.group(Api, "adminUsers", (handlers) =>
  Effect.gen(function* () {
    const queries = yield* AdminUserQueries
    return handlers
      .handle("find", ({ urlParams }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* requireAdmin(user)
            return { users: Option.toArray(yield* queries.byPhone(urlParams.phone)) }
          })
        )
      )
      .handle("get", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* requireAdmin(user)
            return yield* requireFound("user")(yield* queries.byId(path.id))
          })
        )
      )
  })
)

/** The admin's look-up of users. */
export const AdminUsersLive = AdminUsersHttp.pipe(Layer.provide(AdminUserQueries.Default))
