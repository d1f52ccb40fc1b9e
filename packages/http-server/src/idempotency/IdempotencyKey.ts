import { createHash } from "node:crypto"

/** The request header that names a POST's idempotency key. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key"

/** The response header of an answer replayed from an earlier call with the same key. */
export const REPLAYED_HEADER = "idempotent-replayed"

/** How long a key's answer is kept and replayed. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000

/*
 * A call holding its key this long without an answer ran on an instance that is gone (a claimed call runs
 * to its end even when its client leaves); the next call with the key takes it over.
 */
export const RUNNING_CLAIM_TIMEOUT_MS = 60_000

const KEY = /^[\x20-\x7e]{1,255}$/

/** 1 to 255 printable ASCII characters (space included, as inside a header value). */
export const isValidIdempotencyKey = (key: string) => KEY.test(key)

/** What identifies "the same request" for a key: method, canonical path and the body's bytes. */
export const requestHash = (method: string, path: string, body: string | Uint8Array) =>
  createHash("sha256").update(`${method}\n${path}\n`).update(body).digest("hex")

/**
 * Whether an answer is kept for the key. Answers that say the call was refused before it could act (400
 * invalid input, 401, 413, 415, 429) and failures (5xx) release the key instead, so the same key can be
 * sent again, fixed or later; every other answer (2xx, 403, 404, 409, 422) is what the call did.
 */
export const isStoredStatus = (status: number) => status < 500 && ![400, 401, 413, 415, 429].includes(status)
