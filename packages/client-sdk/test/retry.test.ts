import { describe, expect, it } from "vitest"
import { backoffMs, type RequestPolicy, requestPolicy, retryAfterMs, sendWithRetries } from "../src/client/retry.js"
import { createTalabRestClient, TalabApiError, TalabNetworkError, TalabTimeoutError } from "../src/rest.js"

const envelope = (status: number, code: string) =>
  new Response(JSON.stringify({ success: false, error: { code, message: code, details: {} } }), {
    status,
    headers: { "content-type": "application/json" }
  })
const ok = () =>
  new Response(JSON.stringify({ success: true, data: { fine: true } }), {
    status: 200,
    headers: { "content-type": "application/json" }
  })
const networkFailure = () => Promise.reject(new TypeError("fetch failed"))

type Step = Response | (() => Promise<Response>)

/** A fetch answering with the scripted steps in order, recording each request (method, key, body). */
const scriptedFetch = (...steps: Array<Step>) => {
  const seen: Array<{ method: string; key: string | null; body: string }> = []
  const fetch = async (request: Request) => {
    seen.push({ method: request.method, key: request.headers.get("idempotency-key"), body: await request.text() })
    const step = steps.shift()
    if (step === undefined) throw new Error("no more scripted answers")
    return step instanceof Response ? step : step()
  }
  return { fetch, seen }
}

/** The defaults with a recorded, instant wait and a fixed random part. */
const testPolicy = (overrides: Partial<RequestPolicy> = {}) => {
  const waits: Array<number> = []
  const policy: RequestPolicy = {
    ...requestPolicy(undefined, undefined),
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms)
    },
    ...overrides
  }
  return { policy, waits }
}

const get = (init: RequestInit = {}) => new Request("https://api.talab.test/api/v1/requests", init)
const post = (headers: Record<string, string> = {}) =>
  new Request("https://api.talab.test/api/v1/offers", { method: "POST", body: '{"price":1}', headers })

describe("retries", () => {
  it("retries a GET after a network failure, a 502, a 503 and a 504, with growing jittered delays", async () => {
    const { fetch, seen } = scriptedFetch(networkFailure, envelope(502, "X"), envelope(503, "X"), ok())
    const { policy, waits } = testPolicy()
    const response = await sendWithRetries(fetch, get(), policy)
    expect(response.status).toBe(200)
    expect(seen).toHaveLength(4)
    // Equal jitter with random() = 0.5: three quarters of 300, 600, 1200 ms.
    expect(waits).toEqual([225, 450, 900])
  })

  it("gives up after 3 retries by default and answers the last response", async () => {
    const { fetch, seen } = scriptedFetch(...Array.from({ length: 5 }, () => envelope(503, "SERVICE_UNAVAILABLE")))
    const response = await sendWithRetries(fetch, get(), testPolicy().policy)
    expect(response.status).toBe(503)
    expect(seen).toHaveLength(4)
  })

  it("throws TalabNetworkError when the network keeps failing", async () => {
    const { fetch, seen } = scriptedFetch(networkFailure, networkFailure, networkFailure, networkFailure)
    await expect(sendWithRetries(fetch, get(), testPolicy().policy)).rejects.toBeInstanceOf(TalabNetworkError)
    expect(seen).toHaveLength(4)
  })

  it("waits what Retry-After asks on a 429 (seconds or an HTTP date)", async () => {
    const limited = (retryAfter: string) =>
      new Response("{}", { status: 429, headers: { "retry-after": retryAfter, "content-type": "application/json" } })
    const { fetch } = scriptedFetch(limited("2"), ok())
    const { policy, waits } = testPolicy()
    expect((await sendWithRetries(fetch, get(), policy)).status).toBe(200)
    expect(waits).toEqual([2000])
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000)
    expect(retryAfterMs("soon")).toBeUndefined()
  })

  it("hands a 429 that asks for longer than maxRetryAfterMs to the app at once", async () => {
    const { fetch, seen } = scriptedFetch(new Response("{}", { status: 429, headers: { "retry-after": "120" } }), ok())
    expect((await sendWithRetries(fetch, get(), testPolicy().policy)).status).toBe(429)
    expect(seen).toHaveLength(1)
  })

  it("never retries 4xx answers other than 429, nor a 500", async () => {
    for (const status of [400, 401, 404, 422, 500]) {
      const { fetch, seen } = scriptedFetch(envelope(status, "X"), ok())
      expect((await sendWithRetries(fetch, get(), testPolicy().policy)).status).toBe(status)
      expect(seen).toHaveLength(1)
    }
  })

  it("sends a POST once without an Idempotency-Key: it may have been carried out", async () => {
    const { fetch, seen } = scriptedFetch(envelope(503, "X"), ok())
    expect((await sendWithRetries(fetch, post(), testPolicy().policy)).status).toBe(503)
    expect(seen).toHaveLength(1)
  })

  it("retries a POST with an Idempotency-Key, sending the same key and body again", async () => {
    const { fetch, seen } = scriptedFetch(networkFailure, envelope(504, "X"), ok())
    const response = await sendWithRetries(fetch, post({ "idempotency-key": "k-1" }), testPolicy().policy)
    expect(response.status).toBe(200)
    expect(seen).toEqual(Array.from({ length: 3 }, () => ({ method: "POST", key: "k-1", body: '{"price":1}' })))
  })

  it("sends a PATCH once even with an Idempotency-Key: a revision sent twice would be two", async () => {
    const { fetch, seen } = scriptedFetch(envelope(503, "X"), ok())
    const patch = new Request("https://api.talab.test/api/v1/offers/o-1", {
      method: "PATCH",
      body: '{"price":1}',
      headers: { "idempotency-key": "k-2" }
    })
    expect((await sendWithRetries(fetch, patch, testPolicy().policy)).status).toBe(503)
    expect(seen).toHaveLength(1)
  })

  it("takes the number of retries from the options, 0 turning them off", async () => {
    const three = scriptedFetch(...Array.from({ length: 8 }, () => envelope(503, "X")))
    await sendWithRetries(three.fetch, get(), testPolicy({ retries: 6 }).policy)
    expect(three.seen).toHaveLength(7)
    expect(requestPolicy(undefined, false).retries).toBe(0)
    expect(requestPolicy(undefined, { retries: 1 }).retries).toBe(1)
  })

  it("caps the backoff at maxDelayMs", () => {
    const policy = { baseDelayMs: 300, maxDelayMs: 1000, random: () => 1 }
    expect(backoffMs(0, policy)).toBe(300)
    expect(backoffMs(10, policy)).toBe(1000)
    expect(backoffMs(10, { ...policy, random: () => 0 })).toBe(500)
  })
})

describe("timeout and abort", () => {
  // Held here: a Request's signal follows its parent's only weakly, and nothing else holds this fake's request.
  const held: Array<Request> = []
  const hanging = (request: Request) => {
    held.push(request)
    return new Promise<Response>((_, reject) =>
      request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true })
    )
  }

  it("fails an attempt that takes longer than timeoutMs with TalabTimeoutError, after its retries", async () => {
    let attempts = 0
    const fetch = (request: Request) => {
      attempts += 1
      return hanging(request)
    }
    const policy = testPolicy({ timeoutMs: 30, retries: 1 }).policy
    const error = await sendWithRetries(fetch, get(), policy).catch((e) => e)
    expect(error).toBeInstanceOf(TalabTimeoutError)
    expect(error).toBeInstanceOf(TalabNetworkError)
    expect(attempts).toBe(2)
  })

  it("stops at once, without retrying, when the caller's signal aborts", async () => {
    const controller = new AbortController()
    let attempts = 0
    const fetch = (request: Request) => {
      attempts += 1
      setTimeout(() => controller.abort(), 5)
      return hanging(request)
    }
    const error = await sendWithRetries(fetch, get({ signal: controller.signal }), testPolicy().policy).catch((e) => e)
    expect(error.name).toBe("AbortError")
    expect(attempts).toBe(1)
  })

  it("a signal aborted during the backoff wait ends the call without another attempt", async () => {
    const controller = new AbortController()
    const { fetch, seen } = scriptedFetch(envelope(503, "X"), ok())
    const policy = requestPolicy(undefined, { baseDelayMs: 60_000, maxDelayMs: 60_000 })
    const call = sendWithRetries(fetch, get({ signal: controller.signal }), policy)
    setTimeout(() => controller.abort(), 5)
    await expect(call).rejects.toMatchObject({ name: "AbortError" })
    expect(seen).toHaveLength(1)
  })
})

describe("the client", () => {
  it("retries its GETs, throws the last error as TalabApiError, and takes a per-call AbortSignal", async () => {
    const { fetch, seen } = scriptedFetch(envelope(503, "INTERNAL_ERROR"), ok())
    const talab = createTalabRestClient({ baseUrl: "https://api.talab.test", fetch, retry: { baseDelayMs: 1 } })
    expect(await talab.GET("/requests")).toMatchObject({ data: { fine: true } })
    expect(seen).toHaveLength(2)

    const failing = scriptedFetch(envelope(503, "INTERNAL_ERROR"), envelope(503, "INTERNAL_ERROR"))
    const once = createTalabRestClient({
      baseUrl: "https://api.talab.test",
      fetch: failing.fetch,
      retry: { retries: 1, baseDelayMs: 1 }
    })
    await expect(once.GET("/requests")).rejects.toBeInstanceOf(TalabApiError)
    expect(failing.seen).toHaveLength(2)

    const aborted = new AbortController()
    aborted.abort()
    await expect(talab.GET("/requests", { signal: aborted.signal })).rejects.toMatchObject({ name: "AbortError" })
  })

  it("by default gives each POST its own key and keeps it across the retries", async () => {
    const { fetch, seen } = scriptedFetch(envelope(503, "X"), ok(), ok())
    const talab = createTalabRestClient({ baseUrl: "https://api.talab.test", fetch, retry: { baseDelayMs: 1 } })
    await talab.POST("/auth/request-otp", { body: { phone_number: "+966501234567" } })
    await talab.POST("/auth/request-otp", { body: { phone_number: "+966501234567" } })
    const keys = seen.map((s) => s.key)
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).toBe(keys[0])
    expect(keys[2]).not.toBe(keys[0])
  })

  it("keeps a key the caller gave, across its retries", async () => {
    const { fetch, seen } = scriptedFetch(networkFailure, ok())
    const talab = createTalabRestClient({ baseUrl: "https://api.talab.test", fetch, retry: { baseDelayMs: 1 } })
    await talab.POST("/auth/request-otp", {
      body: { phone_number: "+966501234567" },
      headers: { "Idempotency-Key": "mine" }
    })
    expect(seen.map((s) => s.key)).toEqual(["mine", "mine"])
  })

  it("with idempotencyKeys: false, sends no key and a POST only once", async () => {
    const { fetch, seen } = scriptedFetch(envelope(503, "X"))
    const talab = createTalabRestClient({
      baseUrl: "https://api.talab.test",
      fetch,
      idempotencyKeys: false,
      retry: { baseDelayMs: 1 }
    })
    await expect(talab.POST("/auth/request-otp", { body: { phone_number: "+966501234567" } })).rejects.toBeInstanceOf(
      TalabApiError
    )
    expect(seen.map((s) => s.key)).toEqual([null])
  })

  it("retries a keyed POST answered 409 IDEMPOTENCY_KEY_IN_USE after its Retry-After, with the same key", async () => {
    const inUse = envelope(409, "IDEMPOTENCY_KEY_IN_USE")
    inUse.headers.set("retry-after", "1")
    const { fetch, seen } = scriptedFetch(inUse, ok())
    const { policy, waits } = testPolicy()
    const response = await sendWithRetries(fetch, post({ "idempotency-key": "k-9" }), policy)
    expect(response.status).toBe(200)
    expect(seen.map((s) => s.key)).toEqual(["k-9", "k-9"])
    expect(waits).toEqual([1000])
  })
})
