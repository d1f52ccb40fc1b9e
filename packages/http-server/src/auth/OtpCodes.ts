import { createHmac, createSecretKey, randomInt, timingSafeEqual } from "node:crypto"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ServerKeys } from "./Secrets.js"

/** Makes one-time codes and checks them against their stored HMAC. */
export class OtpCodes extends Context.Tag("@talab/http-server/OtpCodes")<
  OtpCodes,
  {
    readonly generate: Effect.Effect<string>
    readonly hash: (phoneNumber: string, code: string) => string
    readonly matches: (phoneNumber: string, code: string, storedHash: string) => boolean
  }
>() {
  static readonly layer = Layer.effect(
    OtpCodes,
    Effect.map(ServerKeys, ({ otp }) => {
      const key = createSecretKey(otp)
      // Binding the phone number into the MAC makes a code valid only for the number it was sent to.
      const hash = (phoneNumber: string, code: string) =>
        createHmac("sha256", key).update(`${phoneNumber}:${code}`).digest("base64url")
      return {
        generate: Effect.sync(() => randomInt(0, 1_000_000).toString().padStart(6, "0")),
        hash,
        matches: (phoneNumber, code, storedHash) => {
          const a = Buffer.from(hash(phoneNumber, code))
          const b = Buffer.from(storedHash)
          return a.length === b.length && timingSafeEqual(a, b)
        }
      }
    })
  )
}
