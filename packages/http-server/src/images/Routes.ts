import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { FileStore } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { envelope, requestLanguage } from "../http/Localize.js"
import { entityTagOf, ifNoneMatchNames } from "../server/ConditionalGet.js"
import { ImageQueries, type ServedImage } from "./Queries.js"
import { IMAGE_FILES_PATH, SignedImageUrls } from "./SignedUrls.js"

/** What an image's holder lets a shared cache do: request photos any signed-in user sees; the rest are private. */
const cachingOf = (image: ServedImage, secondsLeft: number) =>
  `${image.holderKind === "request" ? "public" : "private"}, max-age=${Math.max(0, secondsLeft)}`

/** Gone for everyone: no image, or one whose offer was withdrawn (its photos die with it). */
const isGone = (image: Option.Option<ServedImage>) =>
  Option.match(image, {
    onNone: () => true,
    onSome: (found) => found.holderKind === "offer" && found.offerStatus === "withdrawn"
  })

const notFound = Effect.flatMap(requestLanguage, (language) =>
  HttpServerResponse.json(envelope("NOT_FOUND", language), { status: 404 })
)
const forbidden = Effect.flatMap(requestLanguage, (language) =>
  HttpServerResponse.json(envelope("FORBIDDEN", language), { status: 403 })
)

/**
 * `GET /files/images/{id}/{full|thumb}?exp=…&sig=…`: a photo by its signed URL, without a bearer token. A URL
 * altered, expired or signed for another image answers 403; an image deleted, or whose offer was withdrawn, 404.
 * The bytes are our own WebP re-encoding, served as such with nosniff and a sandboxing policy, so a polyglot
 * upload can only ever be shown as an image.
 */
export const ImageFileRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const files = yield* FileStore
    const queries = yield* ImageQueries
    const urls = yield* SignedImageUrls
    yield* router.get(
      `${IMAGE_FILES_PATH}:id/:variant`,
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const request = yield* HttpServerRequest.HttpServerRequest
        const query = new URL(request.url, "http://x").searchParams
        const id = params.id ?? ""
        const variant = params.variant ?? ""
        const refusal = yield* urls.check(id, variant, query.get("exp") ?? undefined, query.get("sig") ?? undefined)
        if (refusal !== undefined) return yield* forbidden
        const image = yield* queries.forServing(id)
        if (isGone(image) || Option.isNone(image)) return yield* notFound
        const key = variant === "thumb" ? image.value.thumbnailKey : image.value.fileKey
        const file = yield* files.get(key)
        if (Option.isNone(file)) return yield* notFound
        const now = yield* Clock.currentTimeMillis
        const etag = entityTagOf(file.value.bytes)
        const headers = {
          "cache-control": cachingOf(image.value, Math.floor(Number(query.get("exp")) - now / 1000)),
          etag,
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "content-disposition": "inline"
        }
        if (ifNoneMatchNames(request.headers["if-none-match"], etag)) {
          return HttpServerResponse.empty({ status: 304, headers })
        }
        return HttpServerResponse.uint8Array(file.value.bytes, { contentType: image.value.contentType, headers })
      })
    )
  })
)
