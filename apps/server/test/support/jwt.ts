import { createHmac } from "node:crypto"

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** The claims of a JWT, read without checking anything. */
export const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"))

/** A JWT with these claims, signed HS256 under `key`. */
export const signHs256 = (claims: Record<string, unknown>, key: string) => {
  const unsigned = `${base64url({ alg: "HS256", typ: "JWT" })}.${base64url(claims)}`
  return `${unsigned}.${createHmac("sha256", key).update(unsigned).digest("base64url")}`
}

/** An unsecured JWT (`alg: none`, empty signature) with these claims. */
export const unsecured = (claims: Record<string, unknown>) =>
  `${base64url({ alg: "none", typ: "JWT" })}.${base64url(claims)}.`

/** The key the testkit's servers sign with (`startTestServer` without a `jwtSecret` setting). */
const TESTKIT_JWT_SECRET = "testkit-secret-testkit-secret-testkit-secret"

/** A token as the test server would sign it, with some claims changed (e.g. an id that is not a UUID). */
export const resigned = (token: string, changes: Record<string, unknown>) =>
  signHs256({ ...claimsOf(token), ...changes }, TESTKIT_JWT_SECRET)
