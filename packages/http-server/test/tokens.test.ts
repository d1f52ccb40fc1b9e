import { createHmac } from "node:crypto"
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from "@talab/core"
import { Effect, Layer, TestClock, TestContext } from "effect"
import { decodeProtectedHeader, jwtVerify, SignJWT } from "jose"
import { describe, expect, it } from "vitest"
import { ServerKeys } from "../src/auth/Secrets.js"
import { Tokens } from "../src/auth/Tokens.js"

const SECRET = "tokens-test-secret-tokens-test-secret-0123"
const secret = new TextEncoder().encode(SECRET)
const NOW_MS = Date.UTC(2025, 1, 1, 12, 0, 0, 500)
const NOW = Math.floor(NOW_MS / 1000)
const USER_ID = "5f0c4a1e-8d7b-4c2a-9e61-0b3d2f4a6c81"
const SESSION_ID = "a2e9d3b4-1c6f-4e8a-b7d0-9f5e3c2a1b64"

const keys = Layer.succeed(ServerKeys, { jwt: secret, otp: new TextEncoder().encode(`otp:${SECRET}`) })

/** Runs with the Tokens service at NOW (a test clock). */
const run = <A>(f: (tokens: Tokens["Type"]) => Effect.Effect<A>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW_MS)
      return yield* f(yield* Tokens)
    }).pipe(Effect.provide(Tokens.layer.pipe(Layer.provide(keys))), Effect.provide(TestContext.TestContext))
  )

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
const signed = (header: unknown, claims: unknown, key = SECRET) => {
  const input = `${base64url(header)}.${base64url(claims)}`
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`
}
const HS256 = { alg: "HS256", typ: "JWT" }
const claims = (extra: Record<string, unknown> = {}) => ({
  sid: SESSION_ID,
  typ: "access",
  sub: USER_ID,
  iat: NOW - 10,
  exp: NOW + 60,
  jti: "j",
  ...extra
})

describe("Tokens (HS256 over node:crypto)", () => {
  it("signs what jose signed: the same header, the claims in the same order, verifiable by jose", async () => {
    const token = await run((tokens) => tokens.sign({ userId: USER_ID, sessionId: SESSION_ID, type: "refresh" }))
    const { payload, protectedHeader } = await jwtVerify(token, secret, {
      algorithms: ["HS256"],
      currentDate: new Date(NOW_MS)
    })
    expect(protectedHeader).toEqual(HS256)
    expect(Object.keys(payload)).toEqual(["sid", "typ", "sub", "iat", "exp", "jti"])
    expect(payload).toMatchObject({ sid: SESSION_ID, typ: "refresh", sub: USER_ID, iat: NOW })
    expect(payload.exp).toBe(NOW + REFRESH_TOKEN_TTL_SECONDS)

    const joseToken = await new SignJWT({ sid: SESSION_ID, typ: "access" })
      .setProtectedHeader(HS256)
      .setSubject(USER_ID)
      .setIssuedAt(NOW)
      .setExpirationTime(NOW + ACCESS_TOKEN_TTL_SECONDS)
      .setJti(String(payload.jti))
      .sign(secret)
    const ours = await run((tokens) => tokens.sign({ userId: USER_ID, sessionId: SESSION_ID, type: "access" }))
    expect(ours.split(".")[0]).toBe(joseToken.split(".")[0])
    expect(decodeProtectedHeader(ours)).toEqual(HS256)
    expect(await run((tokens) => tokens.verify(joseToken, "access"))).toEqual({
      userId: USER_ID,
      sessionId: SESSION_ID,
      type: "access"
    })
  })

  it("verifies its own tokens of the asked type until they expire", async () => {
    const token = await run((tokens) => tokens.sign({ userId: USER_ID, sessionId: SESSION_ID, type: "access" }))
    expect(await run((tokens) => tokens.verify(token, "access"))).toEqual({
      userId: USER_ID,
      sessionId: SESSION_ID,
      type: "access"
    })
    expect(await run((tokens) => tokens.verify(token, "refresh"))).toBeUndefined()
    expect(await run((tokens) => tokens.verify(signed(HS256, claims({ exp: NOW + 1 })), "access"))).toBeDefined()
    expect(await run((tokens) => tokens.verify(signed(HS256, claims({ exp: NOW })), "access"))).toBeUndefined()
  })

  it("checks a token it verified before for its type and its dates again on every use, without its signature", async () => {
    const token = signed(HS256, claims({ exp: NOW + 60 }))
    const seen = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW_MS)
        const tokens = yield* Tokens
        const first = yield* tokens.verify(token, "access")
        const again = yield* tokens.verify(token, "access")
        const asRefresh = yield* tokens.verify(token, "refresh")
        const tampered = yield* tokens.verify(`${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`, "access")
        yield* TestClock.setTime((NOW + 60) * 1000)
        const expired = yield* tokens.verify(token, "access")
        return { first, again, asRefresh, tampered, expired }
      }).pipe(Effect.provide(Tokens.layer.pipe(Layer.provide(keys))), Effect.provide(TestContext.TestContext))
    )
    const owner = { userId: USER_ID, sessionId: SESSION_ID, type: "access" }
    expect(seen).toEqual({ first: owner, again: owner, asRefresh: undefined, tampered: undefined, expired: undefined })
  })

  it("refuses what jose refused: other keys, other algorithms, tampering, bad dates, critical headers, junk", async () => {
    const good = signed(HS256, claims())
    const [header, payload, signature] = good.split(".")
    const refused = [
      signed(HS256, claims(), "another-key-another-key-another-key-!!"),
      `${base64url({ alg: "none", typ: "JWT" })}.${payload}.`,
      `${base64url({ alg: "none" })}.${payload}.${signature}`,
      signed({ alg: "HS512", typ: "JWT" }, claims()),
      signed({ ...HS256, crit: ["exp"] }, claims()),
      `${header}.${base64url(claims({ sub: "someone-else" }))}.${signature}`,
      `${header}.${payload}.${signature?.slice(0, -2)}`,
      `${header}.${payload}`,
      `${good}.x`,
      signed(HS256, claims({ exp: NOW - 1 })),
      signed(HS256, claims({ exp: String(NOW + 60) })),
      signed(HS256, claims({ nbf: NOW + 5 })),
      signed(HS256, claims({ iat: "yesterday" })),
      signed(HS256, claims({ sub: 42 })),
      signed(HS256, claims({ sid: undefined })),
      signed(HS256, claims({ sub: "user-1" })),
      signed(HS256, claims({ sid: "session-1" })),
      signed(HS256, ["not", "an", "object"]),
      signed("not an object", claims()),
      "",
      "a.b.c",
      "..."
    ]
    for (const token of refused) {
      expect(await run((tokens) => tokens.verify(token, "access")), token).toBeUndefined()
    }
    expect(await run((tokens) => tokens.verify(signed(HS256, claims({ nbf: NOW })), "access"))).toBeDefined()
    expect(await run((tokens) => tokens.verify(good, "access"))).toEqual({
      userId: USER_ID,
      sessionId: SESSION_ID,
      type: "access"
    })
  })

  it("refuses a well-signed token whose sub or sid is not a UUID: it names no user or session", async () => {
    for (const ids of [{ sub: "user-1" }, { sid: "1 OR 1=1" }, { sub: USER_ID.toUpperCase().slice(1) }]) {
      expect(await run((tokens) => tokens.verify(signed(HS256, claims(ids)), "access"))).toBeUndefined()
    }
    expect(
      await run((tokens) => tokens.verify(signed(HS256, claims({ sub: USER_ID.toUpperCase() })), "access"))
    ).toBeDefined()
  })
})
