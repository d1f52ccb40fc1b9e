import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import { Api, CurrentUser } from "@talab/contract"
import { UnsupportedMediaType, ValidationFailed } from "@talab/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { PayloadTooLarge } from "../http/EdgeErrors.js"
import { respond } from "../http/Localize.js"
import { UsersService } from "./Service.js"

const meView = ({ user, sellerProfile }: Effect.Effect.Success<ReturnType<UsersService["me"]>>) => ({
  ...user,
  sellerProfile
})

/** A size limit of the parser; inside a part's content it surfaces as an InternalError around the limit. */
const isSizeLimit = (error: Multipart.MultipartError) => {
  const cause = error.cause as { _tag?: string; limit?: string } | undefined
  return (
    error.reason === "FileTooLarge" ||
    error.reason === "BodyTooLarge" ||
    (cause?._tag === "ReachedLimit" && cause.limit !== "MaxParts")
  )
}

const isMultipartFormData = (contentType: string) =>
  (contentType.split(";")[0] ?? "").trim().toLowerCase() === "multipart/form-data"

const isMultipartWithBoundary = (contentType: string | undefined) =>
  contentType !== undefined && /^multipart\/form-data\s*;(.*;)?\s*boundary=("[^"]+"|[^\s;"]+)/i.test(contentType)

/**
 * The bytes of the first `avatar` file part; a part over the size limit is a 413. Every part is read
 * to the end: the parser waits until a part's content is consumed, and a request left half read would
 * have its connection torn down under the client's next request.
 */
const avatarBytes = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  parts.pipe(
    Stream.filter(Multipart.isFile),
    Stream.runFoldEffect(Option.none<Buffer>(), (found, file) =>
      file.key === "avatar" && Option.isNone(found)
        ? Effect.map(Stream.runCollect(file.content), (chunks) => Option.some(Buffer.concat(Chunk.toArray(chunks))))
        : Effect.as(Stream.runDrain(file.content), found)
    ),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(ValidationFailed.field("avatar", "avatar_missing")),
        onSome: Effect.succeed
      })
    ),
    Effect.catchTag(
      "MultipartError",
      (error): Effect.Effect<never, PayloadTooLarge | ValidationFailed> =>
        isSizeLimit(error)
          ? Effect.fail(new PayloadTooLarge())
          : Effect.fail(ValidationFailed.field("avatar", "avatar_missing"))
    )
  )

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
            const contentType = request.headers["content-type"]
            // The avatar is a form upload; a body of any other type is refused unread.
            if (contentType !== undefined && !isMultipartFormData(contentType)) {
              return yield* Effect.fail(new UnsupportedMediaType())
            }
            // The multipart parser throws outside the stream on a missing boundary; such a request has no avatar part.
            if (!isMultipartWithBoundary(request.headers["content-type"])) {
              return yield* Effect.fail(ValidationFailed.field("avatar", "avatar_missing"))
            }
            const bytes = yield* avatarBytes(
              payload as unknown as Stream.Stream<Multipart.Part, Multipart.MultipartError>
            )
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
