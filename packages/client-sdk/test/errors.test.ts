import { createServer } from "node:net"
import { statusOfCode } from "@talab/contract"
import { describe, expect, it } from "vitest"
import { createTalabClient, ERROR_CODES, isTalabApiError, TalabApiError, TalabNetworkError } from "../src/index.js"
import { approvedSeller, postRequest, relaxedSettings, signedInClient, useTestServer } from "./support.js"

const UNKNOWN_ID = "7b0c3e2a-4f51-4c8e-9a51-3f5c2e1d0b9a"

/** The error a call rejected with. */
const failureOf = async (call: Promise<unknown>): Promise<TalabApiError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e
  )
  if (!(error instanceof TalabApiError)) throw new Error(`expected a TalabApiError, got ${String(error)}`)
  return error
}

describe("typed errors", () => {
  const server = useTestServer()

  it("400: VALIDATION_ERROR with localized details naming each invalid field", async () => {
    const { talab } = await signedInClient(server())
    const error = await failureOf(
      talab.POST("/requests", {
        body: { category: "car" as "phone", budget_min: -5, budget_max: 10, location_district: "Al Rawdah" }
      })
    )
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", status: 400 })
    expect(Object.keys(error.details)).toEqual(expect.arrayContaining(["category", "budget_min"]))
    expect(error.details.category?.[0]).toMatch(/[A-Za-z]/)
    expect(error.message.length).toBeGreaterThan(0)
  })

  it("401: UNAUTHORIZED without a session", async () => {
    const talab = createTalabClient({ baseUrl: server().baseUrl })
    const error = await failureOf(talab.GET("/requests"))
    expect(error).toMatchObject({ code: "UNAUTHORIZED", status: 401, details: {} })
  })

  it("403: FORBIDDEN to close another buyer's request, SELLER_NOT_APPROVED to offer without a profile", async () => {
    const owner = await signedInClient(server())
    const stranger = await signedInClient(server())
    const request = await postRequest(owner.talab)

    const forbidden = await failureOf(
      stranger.talab.PUT("/requests/{id}/close", { params: { path: { id: request.id } } })
    )
    expect(forbidden).toMatchObject({ code: "FORBIDDEN", status: 403 })

    const notSeller = await failureOf(
      stranger.talab.POST("/offers", { body: { request_id: request.id, price: 3000, availability: "today" } })
    )
    expect(notSeller).toMatchObject({ code: "SELLER_NOT_APPROVED", status: 403 })
  })

  it("404: NOT_FOUND for an unknown id", async () => {
    const { talab } = await signedInClient(server())
    const error = await failureOf(talab.GET("/requests/{id}", { params: { path: { id: UNKNOWN_ID } } }))
    expect(error).toMatchObject({ code: "NOT_FOUND", status: 404 })
  })

  it("422: business rules carry their own code (REQUEST_ALREADY_CLOSED, CANNOT_OFFER_ON_OWN_REQUEST)", async () => {
    const seller = await approvedSeller(server())
    const request = await postRequest(seller.talab)
    const ownOffer = await failureOf(
      seller.talab.POST("/offers", { body: { request_id: request.id, price: 3000, availability: "today" } })
    )
    expect(ownOffer).toMatchObject({ code: "CANNOT_OFFER_ON_OWN_REQUEST", status: 422 })

    await seller.talab.PUT("/requests/{id}/close", { params: { path: { id: request.id } } })
    const closedTwice = await failureOf(
      seller.talab.PUT("/requests/{id}/close", { params: { path: { id: request.id } } })
    )
    expect(closedTwice).toMatchObject({ code: "REQUEST_ALREADY_CLOSED", status: 422 })
  })

  it("isTalabApiError narrows by code", async () => {
    const { talab } = await signedInClient(server())
    const error: unknown = await talab.GET("/requests/{id}", { params: { path: { id: UNKNOWN_ID } } }).catch((e) => e)
    expect(isTalabApiError(error)).toBe(true)
    expect(isTalabApiError(error, "NOT_FOUND", "FORBIDDEN")).toBe(true)
    expect(isTalabApiError(error, "FORBIDDEN")).toBe(false)
    expect(isTalabApiError(new Error("x"))).toBe(false)
  })

  it("knows every code of the API's table (decisions.md section 6, checked in @talab/contract) as an ErrorCode", () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(statusOfCode).sort())
  })
})

describe("rate limits", () => {
  const server = useTestServer({
    settings: { ...relaxedSettings, rateLimits: { ...relaxedSettings.rateLimits!, apiPerMinute: 3 } }
  })

  it("429: RATE_LIMITED with the seconds to wait from Retry-After", async () => {
    const { talab } = await signedInClient(server())
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => talab.GET("/users/me")))
    const limited = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as TalabApiError] : []))
    expect(limited.length).toBeGreaterThan(0)
    expect(limited[0]).toMatchObject({ code: "RATE_LIMITED", status: 429 })
    expect(limited[0]!.retryAfterSeconds).toBeGreaterThan(0)
  })
})

describe("failures outside the API", () => {
  it("a server that cannot be reached is a TalabNetworkError, not an API error", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const address = probe.address() as { port: number }
        probe.close(() => resolve(address.port))
      })
    })
    const talab = createTalabClient({ baseUrl: `http://127.0.0.1:${port}` })
    const error = await talab.auth.requestOtp("+966501234567").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TalabNetworkError)
    expect(isTalabApiError(error)).toBe(false)
  })

  it("an error page from a proxy in between becomes a TalabApiError with the code of its status", async () => {
    const talab = createTalabClient({
      baseUrl: "http://api.invalid",
      fetch: async () => new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" })
    })
    const error = await failureOf(talab.auth.requestOtp("+966501234567"))
    expect(error).toMatchObject({ code: "INTERNAL_ERROR", status: 502, message: "HTTP 502 Bad Gateway" })
    expect(error.body).toBe("<html>Bad gateway</html>")
  })

  it("an aborted call rejects with the AbortError itself", async () => {
    const talab = createTalabClient({ baseUrl: "http://127.0.0.1:9" })
    const controller = new AbortController()
    controller.abort()
    const error = await talab.auth.requestOtp("+966501234567").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TalabNetworkError)
    const aborted = await talab
      .POST("/auth/request-otp", { body: { phone_number: "+966501234567" }, signal: controller.signal })
      .catch((e: unknown) => e)
    expect((aborted as Error).name).toBe("AbortError")
  })
})
