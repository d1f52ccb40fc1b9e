import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto"
import { OTP_LENGTH } from "@talab/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ServerKeys } from "./Secrets.js"

const CODE_SPACE = 10n ** BigInt(OTP_LENGTH)

/**
 * Makes one-time codes and checks them against their stored HMAC.
 *
 * A code is not drawn and forgotten: it is HMAC-SHA256, under a key of its own derived from the server key, of
 * the number and the instant its challenge expires. So a request while the code is live can send the owner that
 * same code again, and still nothing but its hash is stored: without the server key a code can be neither
 * computed nor recovered, and with that key every stored hash falls to a million tries anyway (and every token
 * can be forged). A later challenge expires later, so it gets a code of its own.
 */
export class OtpCodes extends Context.Tag("@talab/http-server/OtpCodes")<
  OtpCodes,
  {
    /** The code of the number's challenge that expires at `expiresAt`. */
    readonly codeFor: (phoneNumber: string, expiresAt: Date) => string
    readonly hash: (phoneNumber: string, code: string) => string
    readonly matches: (phoneNumber: string, code: string, storedHash: string) => boolean
  }
>() {
  static readonly layer = Layer.effect(
    OtpCodes,
    Effect.map(ServerKeys, ({ otp }) => {
      const key = createSecretKey(otp)
      const codeKey = createSecretKey(createHmac("sha256", key).update("one-time code derivation").digest())
      // Binding the phone number into the MAC makes a code valid only for the number it was sent to.
      const hash = (phoneNumber: string, code: string) =>
        createHmac("sha256", key).update(`${phoneNumber}:${code}`).digest("base64url")
      return {
        codeFor: (phoneNumber, expiresAt) => {
          const mac = createHmac("sha256", codeKey).update(`${phoneNumber}@${expiresAt.toISOString()}`).digest()
          // 64 bits reduced mod 10^6: the bias is below 10^-13.
          return (mac.readBigUInt64BE(0) % CODE_SPACE).toString().padStart(OTP_LENGTH, "0")
        },
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
