import { randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../config/AppConfig.js"

/** The server's signing key (JWT HS256) and the key OTP codes are hashed under. */
export class ServerKeys extends Context.Tag("@talab/http-server/ServerKeys")<
  ServerKeys,
  { readonly jwt: Uint8Array; readonly otp: Uint8Array }
>() {
  /** JWT_SECRET when set, else a secret generated once and kept in DATA_DIR. */
  static readonly layer = Layer.effect(
    ServerKeys,
    Effect.gen(function* () {
      const config = yield* AppConfig
      const secret =
        config.jwtSecret !== undefined ? Redacted.value(config.jwtSecret) : yield* loadOrCreateSecret(config.dataDir)
      const jwt = new TextEncoder().encode(secret)
      const otp = new TextEncoder().encode(`otp:${secret}`)
      return { jwt, otp }
    })
  )
}

const loadOrCreateSecret = (dataDir: string) =>
  Effect.promise(async () => {
    const file = join(dataDir, "jwt-secret")
    try {
      return (await readFile(file, "utf8")).trim()
    } catch {
      await mkdir(dataDir, { recursive: true })
      const secret = randomBytes(48).toString("base64url")
      await writeFile(file, secret, { mode: 0o600, flag: "wx" }).catch(async () => undefined)
      return (await readFile(file, "utf8")).trim()
    }
  })
