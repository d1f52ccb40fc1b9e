import { TalabNetworkError, TalabTimeoutError } from "../api/errors.js"

/** When and how often a REST call is sent again after a failure that may pass. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  readonly retries?: number
  /** The first backoff delay in ms (default 300); it doubles with every retry. */
  readonly baseDelayMs?: number
  /** The longest backoff delay in ms (default 10 000). */
  readonly maxDelayMs?: number
  /**
   * The longest `Retry-After` the client waits for on its own, in ms (default 30 000); a 429 or 503 asking for
   * longer is thrown to the app at once (`TalabApiError.retryAfterSeconds`).
   */
  readonly maxRetryAfterMs?: number
}

/** Everything {@link sendWithRetries} needs: timeout, retry settings and, for tests, the randomness and the wait. */
export interface RequestPolicy {
  readonly timeoutMs: number
  readonly retries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly maxRetryAfterMs: number
  readonly random: () => number
  readonly sleep: (ms: number, signal: AbortSignal | null) => Promise<void>
}

/**
 * Statuses a retry may cure: the same key's earlier attempt still running (409 IDEMPOTENCY_KEY_IN_USE, the
 * API's only 409), rate limited, and a gateway or server briefly down.
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([409, 429, 502, 503, 504])

/** The policy with every default filled in. */
export const requestPolicy = (
  timeoutMs: number | undefined,
  retry: RetryOptions | false | undefined
): RequestPolicy => ({
  timeoutMs: timeoutMs ?? 15_000,
  retries: retry === false ? 0 : Math.max(0, Math.floor(retry?.retries ?? 3)),
  baseDelayMs: (retry || undefined)?.baseDelayMs ?? 300,
  maxDelayMs: (retry || undefined)?.maxDelayMs ?? 10_000,
  maxRetryAfterMs: (retry || undefined)?.maxRetryAfterMs ?? 30_000,
  random: Math.random,
  sleep: abortableSleep
})

/**
 * Whether sending the request twice is safe: reads, and writes carrying an `Idempotency-Key` (the server
 * answers a repeated key with the first outcome instead of acting twice). Never a PATCH: the server keeps keys
 * for POSTs only, and a revision sent twice would be two revisions.
 */
const isRetrySafe = (request: Request) =>
  request.method === "GET" ||
  request.method === "HEAD" ||
  (request.method !== "PATCH" && request.headers.has("idempotency-key"))

/** Exponential backoff with equal jitter: half the doubled delay plus a random part of the other half. */
export const backoffMs = (retry: number, policy: Pick<RequestPolicy, "baseDelayMs" | "maxDelayMs" | "random">) => {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return exponential / 2 + policy.random() * (exponential / 2)
}

/** `Retry-After` in ms: delta seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterMs = (header: string | null, now = Date.now()): number | undefined => {
  if (header === null || header.trim() === "") return undefined
  if (/^\s*\d+\s*$/.test(header)) return Number.parseInt(header, 10) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const abortReason = (signal: AbortSignal) =>
  signal.reason ?? Object.assign(new Error("The operation was aborted"), { name: "AbortError" })

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
const abortableSleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal!))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

type Attempt =
  | { readonly kind: "response"; readonly response: Response }
  | { readonly kind: "failed"; readonly error: TalabNetworkError }

/** One attempt: the caller's signal and the timeout both abort it; a network failure becomes a value. */
const attempt = async (fetch: (request: Request) => Promise<Response>, request: Request, timeoutMs: number) => {
  // React Native's fetch polyfill may build a Request without a signal.
  const callerSignal: AbortSignal | undefined = request.signal ?? undefined
  const controller = new AbortController()
  const onCallerAbort = () => controller.abort(callerSignal?.reason)
  callerSignal?.addEventListener("abort", onCallerAbort, { once: true })
  let timedOut = false
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true
          controller.abort()
        }, timeoutMs)
      : undefined
  try {
    const response = await fetch(new Request(request, { signal: controller.signal }))
    return { kind: "response", response } satisfies Attempt
  } catch (error) {
    if (callerSignal?.aborted) throw abortReason(callerSignal)
    const failure = timedOut
      ? new TalabTimeoutError(`No answer from ${request.url} within ${timeoutMs} ms`, { cause: error })
      : new TalabNetworkError(`Could not reach the Talab API at ${request.url}`, { cause: error })
    return { kind: "failed", error: failure } satisfies Attempt
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    callerSignal?.removeEventListener("abort", onCallerAbort)
  }
}

/**
 * Sends a request with a timeout per attempt, and sends it again after a network failure, a timeout, a 409 or
 * 429 (after its `Retry-After`) or a 502/503/504 (after `Retry-After` or a backoff) when that is safe
 * ({@link isRetrySafe}), up to `policy.retries` times. An abort of the request's own signal stops everything.
 */
export const sendWithRetries = async (
  fetch: (request: Request) => Promise<Response>,
  request: Request,
  policy: RequestPolicy
): Promise<Response> => {
  const retries = isRetrySafe(request) ? policy.retries : 0
  for (let retry = 0; ; retry++) {
    // Every attempt sends a copy: a body can be read once.
    const outcome = await attempt(fetch, request.clone(), policy.timeoutMs)
    const last = retry >= retries
    if (outcome.kind === "failed") {
      if (last) throw outcome.error
      await policy.sleep(backoffMs(retry, policy), request.signal ?? null)
      continue
    }
    const { response } = outcome
    if (last || !RETRYABLE_STATUSES.has(response.status)) return response
    const asked = retryAfterMs(response.headers.get("retry-after"))
    if (asked !== undefined && asked > policy.maxRetryAfterMs) return response
    await response.body?.cancel().catch(() => undefined)
    await policy.sleep(asked ?? backoffMs(retry, policy), request.signal ?? null)
  }
}
