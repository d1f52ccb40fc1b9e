import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Api, CurrentUser } from "@talab/contract"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { respond } from "../http/Localize.js"
import { uploadedFile } from "../images/Upload.js"
import { UsersService } from "./Service.js"

const meView = ({ user, sellerProfile }: Effect.Effect.Success<ReturnType<UsersService["me"]>>) => ({
  ...user,
  sellerProfile
})

const UsersHttp = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function* () {
    const service = yield* UsersService
    return handlers
      .handle("getMe", () =>
        Effect.flatMap(CurrentUser, ({ user }) => service.me(user)).pipe(Effect.map((me) => meView(me)))
      )
      .handle("updateMe", ({ payload }) =>
        respond(
          // No body at all changes nothing, as an empty one does.
          Effect.flatMap(CurrentUser, ({ user }) => service.updateMe(user, payload ?? {})).pipe(
            Effect.map((me) => meView(me))
          )
        )
      )
      .handle("uploadAvatar", ({ payload, request }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const bytes = yield* uploadedFile(request, payload, "avatar", "avatar_missing")
            const { avatarUrl } = yield* service.setAvatar(user, bytes)
            return { avatar_url: avatarUrl }
          })
        )
      )
      .handle("exportMe", () =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const document = yield* service.exportOf(user)
            yield* HttpApp.appendPreResponseHandler((_request, response) =>
              Effect.succeed(
                HttpServerResponse.setHeader(
                  response,
                  "content-disposition",
                  'attachment; filename="talab-export.json"'
                )
              )
            )
            return document
          })
        )
      )
      .handle("deleteMe", ({ payload }) =>
        respond(
          Effect.flatMap(CurrentUser, ({ user }) => service.deleteMe(user, payload)).pipe(
            Effect.map(({ deletedAt }) => ({ deleted_at: deletedAt }))
          )
        )
      )
      .handle("registerDevice", ({ payload }) =>
        respond(Effect.flatMap(CurrentUser, ({ user, sessionId }) => service.registerDevice(user, sessionId, payload)))
      )
  })
)

/** The caller's account and devices: the REST handlers with their own services. */
export const UsersLive = UsersHttp.pipe(Layer.provide(UsersService.Default))
