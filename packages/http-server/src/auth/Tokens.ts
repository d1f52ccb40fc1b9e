import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto"
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { ServerKeys } from "./Secrets.js"

export type TokenType = "access" | "refresh"

export interface TokenClaims {
  readonly userId: string
  readonly sessionId: string
  readonly type: TokenType
}

/** The header every token carries; the only one `verify` accepts is HS256 without extensions. */
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")
const BASE64URL = /^[A-Za-z0-9_-]+$/

const jsonObjectOf = (part: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

const isNumberOrAbsent = (value: unknown) => value === undefined || typeof value === "number"

/** `sub` and `sid` name a user and a session: a token whose ids are not UUIDs names nobody, so it is no token. */
const isId = Schema.is(Schema.UUID)

/**
 * The payload of a compact HS256 JWS signed with `key` whose registered dates hold at `nowSeconds` (RFC 7519
 * as jose checks it: `exp` strictly after now, `nbf` not after now, no `crit`), or undefined. Synchronous on
 * purpose: WebCrypto's HMAC is an async job per call, which cost more than the HMAC itself on every request.
 */
const verifiedPayload = (token: string, key: KeyObject, nowSeconds: number) => {
  const parts = token.split(".")
  if (parts.length !== 3) return undefined
  const [header, payload, signature] = parts as [string, string, string]
  if (!BASE64URL.test(header) || !BASE64URL.test(payload) || !BASE64URL.test(signature)) return undefined
  const expected = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url")
  if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
    return undefined
  }
  const protectedHeader = jsonObjectOf(header)
  if (protectedHeader?.alg !== "HS256" || protectedHeader.crit !== undefined || protectedHeader.b64 !== undefined) {
    return undefined
  }
  const claims = jsonObjectOf(payload)
  if (claims === undefined) return undefined
  const { exp, nbf, iat } = claims
  if (!isNumberOrAbsent(exp) || !isNumberOrAbsent(nbf) || !isNumberOrAbsent(iat)) return undefined
  if (typeof exp === "number" && exp <= nowSeconds) return undefined
  if (typeof nbf === "number" && nbf > nowSeconds) return undefined
  return claims
}

/** Tokens whose signature was checked, kept so a token used again costs no HMAC (most calls reuse one). */
const VERIFIED_KEPT = 10_000

interface Verified {
  readonly claims: TokenClaims
  readonly exp: number | undefined
  readonly nbf: number | undefined
}

/** Signs and checks the service's JWTs (HS256 only; `alg: none` and other keys are refused), key imported once. */
export class Tokens extends Context.Tag("@talab/http-server/Tokens")<
  Tokens,
  {
    readonly sign: (claims: TokenClaims) => Effect.Effect<string>
    /** The claims of a valid, unexpired token of the given type whose `sub` and `sid` are UUIDs, or undefined. */
    readonly verify: (token: string, type: TokenType) => Effect.Effect<TokenClaims | undefined>
  }
>() {
  static readonly layer = Layer.effect(
    Tokens,
    Effect.gen(function* () {
      const { jwt } = yield* ServerKeys
      const key = createSecretKey(jwt)
      const verified = new Map<string, Verified>()
      return {
        sign: (claims) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const iat = Math.floor(now / 1000)
            const ttl = claims.type === "access" ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS
            // The claims in the order jose wrote them, so tokens look as they always did.
            const payload = Buffer.from(
              JSON.stringify({
                sid: claims.sessionId,
                typ: claims.type,
                sub: claims.userId,
                iat,
                exp: iat + ttl,
                jti: globalThis.crypto.randomUUID()
              })
            ).toString("base64url")
            const input = `${HEADER}.${payload}`
            return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`
          }),
        verify: (token, type) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const nowSeconds = Math.floor(now / 1000)
            // Its dates are checked again on every use, as a first check would.
            const kept = verified.get(token)
            if (kept !== undefined && (kept.exp === undefined || kept.exp > nowSeconds)) {
              return kept.claims.type === type && (kept.nbf === undefined || kept.nbf <= nowSeconds)
                ? kept.claims
                : undefined
            }
            const payload = verifiedPayload(token, key, nowSeconds)
            if (payload === undefined || (payload.typ !== "access" && payload.typ !== "refresh")) return undefined
            if (!isId(payload.sub) || !isId(payload.sid)) return undefined
            const claims: TokenClaims = { userId: payload.sub, sessionId: payload.sid, type: payload.typ }
            if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value!)
            verified.set(token, {
              claims,
              exp: payload.exp as number | undefined,
              nbf: payload.nbf as number | undefined
            })
            return claims.type === type ? claims : undefined
          })
      }
    })
  )
}
