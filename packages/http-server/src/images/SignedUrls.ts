import { createHmac, timingSafeEqual } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { ServerKeys } from "../auth/Secrets.js"
import { AppConfig } from "../config/AppConfig.js"

/*
 * A photo's URL is its own credential (an image loader on a phone sends no bearer token): the path names the
 * image and its variant, the query its expiry and an HMAC-SHA256 of the three under a key of the server's secret
 * (JWT_SECRET, shared by every instance). URLs are signed per hour (docs/DECISIONS.md, "Photos"): everything
 * signed within one clock hour expires at the end of the next one, so a URL answered is valid for at least an
 * hour and at most two, and an answer kept by the read cache until its hour ends still hands out URLs valid for
 * an hour more. Within an hour the URL of an image is the same string, which image caches on phones reuse.
 */

/** The stored image or its thumbnail. */
type ImageVariant = "full" | "thumb"

export const IMAGE_FILES_PATH = "/files/images/"

const HOUR_MS = 60 * 60 * 1000

/** Where a URL signed at `now` expires (epoch seconds): the end of the hour after the current one. */
const expiryOf = (now: number) => ((Math.floor(now / HOUR_MS) + 2) * HOUR_MS) / 1000

/**
 * Epoch ms until which an answer holding URLs signed at `now` may be served again: the end of the current hour,
 * when every such URL still has an hour to live.
 */
export const signedUrlsServableUntil = (now: number) => (Math.floor(now / HOUR_MS) + 1) * HOUR_MS

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Why a URL is refused before anything is looked up: not signed by us for this image, or past its expiry. */
type UrlRefusal = "forged" | "expired"

/** Signs and checks image URLs. */
export class SignedImageUrls extends Effect.Service<SignedImageUrls>()("Images/SignedUrls", {
  effect: Effect.gen(function* () {
    const { jwt } = yield* ServerKeys
    const { publicUrl } = yield* AppConfig
    // A key of its own: a signature made here is never a valid signature of anything else the server signs.
    const key = createHmac("sha256", jwt).update("talab image urls v1").digest()
    const signatureOf = (id: string, variant: ImageVariant, expires: number) =>
      createHmac("sha256", key).update(`${id}/${variant}/${expires}`).digest("base64url")

    const urlAt = (now: number) => (id: string, variant: ImageVariant) => {
      const expires = expiryOf(now)
      return `${publicUrl}${IMAGE_FILES_PATH}${id}/${variant}?exp=${expires}&sig=${signatureOf(id, variant, expires)}`
    }

    /** The two URLs of each image, signed for the current hour. */
    const signer = Effect.map(Clock.currentTimeMillis, (now) => {
      const url = urlAt(now)
      return <I extends { readonly id: string; readonly width: number; readonly height: number }>(image: I) => ({
        id: image.id,
        url: url(image.id, "full"),
        thumbnail_url: url(image.id, "thumb"),
        width: image.width,
        height: image.height
      })
    })

    /**
     * Checks a URL's query against its path: the signature is compared as the text we would have written (one
     * spelling only, in constant time), then the expiry.
     */
    const check = (id: string, variant: string, expires: string | undefined, signature: string | undefined) =>
      Effect.map(Clock.currentTimeMillis, (now): UrlRefusal | undefined => {
        if (!UUID.test(id) || (variant !== "full" && variant !== "thumb")) return "forged"
        if (expires === undefined || signature === undefined || !/^[1-9][0-9]{0,11}$/.test(expires)) return "forged"
        const expected = Buffer.from(signatureOf(id, variant, Number(expires)))
        const given = Buffer.from(signature)
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "forged"
        return Number(expires) * 1000 <= now ? "expired" : undefined
      })

    return { signer, check } as const
  })
}) {}
