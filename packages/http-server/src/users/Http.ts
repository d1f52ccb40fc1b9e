import { HttpApiBuilder, Multipart } from "@effect/platform"
import { PayloadTooLarge, ValidationFailed } from "@talab/core"
import { Chunk, Effect, Stream } from "effect"
import { Api } from "../Api.js"
import { CurrentUser } from "../http/CurrentUser.js"
import { respond } from "../http/Localize.js"
import { sellerProfileSummary, userView } from "../http/Views.js"
import { UsersService } from "./Service.js"

const meView = ({ user, sellerProfile }: Effect.Effect.Success<ReturnType<UsersService["me"]>>) => ({
  ...userView(user),
  seller_profile: sellerProfile === null ? null : sellerProfileSummary(sellerProfile)
})

/** The bytes of the `avatar` file part; a part over the size limit is a 413. */
const avatarBytes = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  parts.pipe(
    Stream.filter(Multipart.isFile),
    Stream.filter((file) => file.key === "avatar"),
    Stream.take(1),
    Stream.runCollect,
    Effect.flatMap((files) =>
      Chunk.head(files).pipe(
        Effect.flatMap((file) => Stream.runCollect(file.content)),
        Effect.map((chunks) => Buffer.concat(Chunk.toArray(chunks))),
        Effect.catchTag("NoSuchElementException", () => Effect.fail(ValidationFailed.field("avatar", "avatar_missing")))
      )
    ),
    Effect.catchTag("MultipartError", (error): Effect.Effect<never, PayloadTooLarge | ValidationFailed> =>
      error.reason === "FileTooLarge" || error.reason === "BodyTooLarge"
        ? Effect.fail(new PayloadTooLarge())
        : Effect.fail(ValidationFailed.field("avatar", "avatar_missing"))
    )
  )

export const UsersHttp = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function* () {
    const service = yield* UsersService
    return handlers
      .handle("getMe", () =>
        Effect.flatMap(CurrentUser, ({ user }) => service.me(user)).pipe(
          Effect.map((me) => ({ success: true as const, data: meView(me) }))
        )
      )
      .handle("updateMe", ({ payload }) =>
        respond(
          Effect.flatMap(CurrentUser, ({ user }) =>
            service.updateMe(user, {
              ...(payload?.name !== undefined ? { name: payload.name } : {}),
              ...(payload?.language !== undefined ? { language: payload.language } : {})
            })
          ).pipe(Effect.map((me) => ({ success: true as const, data: meView(me) })))
        )
      )
      .handle("uploadAvatar", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const bytes = yield* avatarBytes(payload as unknown as Stream.Stream<Multipart.Part, Multipart.MultipartError>)
            const { avatarUrl } = yield* service.setAvatar(user, bytes)
            return { success: true as const, data: { avatar_url: avatarUrl } }
          })
        )
      )
      .handle("registerDevice", ({ payload }) =>
        Effect.flatMap(CurrentUser, ({ user }) => service.registerDevice(user, payload.platform, payload.push_token)).pipe(
          Effect.map((device) => ({
            success: true as const,
            data: { id: device.id, platform: device.platform, created_at: device.createdAt }
          }))
        )
      )
  })
)
