import { Clock, Context, Effect, Layer } from "effect"
import { errors as joseErrors, jwtVerify, SignJWT } from "jose"
import { ServerKeys } from "./Secrets.js"

export const ACCESS_TOKEN_TTL_SECONDS = 86_400
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400

export type TokenType = "access" | "refresh"

export interface TokenClaims {
  readonly userId: string
  readonly sessionId: string
  readonly type: TokenType
}

/** Signs and checks the service's JWTs (HS256 only; `alg: none` and other keys are refused). */
export class Tokens extends Context.Tag("@talab/http-server/Tokens")<
  Tokens,
  {
    readonly sign: (claims: TokenClaims) => Effect.Effect<string>
    /** The claims of a valid, unexpired token of the given type, or undefined. */
    readonly verify: (token: string, type: TokenType) => Effect.Effect<TokenClaims | undefined>
  }
>() {
  static readonly layer = Layer.effect(
    Tokens,
    Effect.gen(function* () {
      const { jwt: key } = yield* ServerKeys
      return {
        sign: (claims) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const iat = Math.floor(now / 1000)
            const ttl = claims.type === "access" ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS
            return Effect.promise(() =>
              new SignJWT({ sid: claims.sessionId, typ: claims.type })
                .setProtectedHeader({ alg: "HS256", typ: "JWT" })
                .setSubject(claims.userId)
                .setIssuedAt(iat)
                .setExpirationTime(iat + ttl)
                .setJti(globalThis.crypto.randomUUID())
                .sign(key)
            )
          }),
        verify: (token, type) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.tryPromise(() => jwtVerify(token, key, { algorithms: ["HS256"], currentDate: new Date(now) })).pipe(
              Effect.map(({ payload }): TokenClaims | undefined =>
                payload.typ === type && typeof payload.sub === "string" && typeof payload.sid === "string"
                  ? { userId: payload.sub, sessionId: payload.sid, type }
                  : undefined
              ),
              Effect.catchAll((error) =>
                error.error instanceof joseErrors.JOSEError || error.error instanceof TypeError
                  ? Effect.succeed(undefined)
                  : Effect.die(error.error)
              )
            )
          )
      }
    })
  )
}
