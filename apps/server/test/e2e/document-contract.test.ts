import { describe, expect, it } from "vitest"
import { checkApiCall, takeApiViolations } from "../support/api-contract.js"
import { checkCloseCode, checkServerFrame, takeFrameViolations } from "../support/frame-contract.js"

const UUID = "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f"

describe("the WebSocket frame check (against the AsyncAPI document)", () => {
  it("passes frames and close codes the document describes", () => {
    checkServerFrame({ type: "pong" })
    checkServerFrame({ type: "auth_ok", user_id: UUID })
    checkServerFrame({ type: "error", code: "FORBIDDEN", message: "No", channel: `conversation.${UUID}` })
    for (const code of [1000, 1001, 1006, 1009, 4008, 4401]) checkCloseCode(code)
    expect(takeFrameViolations()).toEqual([])
  })

  it("flags an unknown type, an undeclared error code, an extra field, a missing one and an unnamed close code", () => {
    checkServerFrame({ type: "hello" })
    checkServerFrame({ type: "error", code: "OFFER_NOT_PENDING", message: "No" })
    checkServerFrame({ type: "pong", extra: true })
    checkServerFrame({ type: "auth_ok" })
    checkServerFrame("not an object")
    checkCloseCode(4999)
    const violations = takeFrameViolations()
    expect(violations).toHaveLength(6)
    expect(violations[0]).toContain("does not list")
    expect(violations[1]).toContain("/code")
    expect(violations[5]).toContain("4999")
    expect(takeFrameViolations()).toEqual([])
  })
})

describe("the REST call check (against the OpenAPI document)", () => {
  const base = "http://127.0.0.1:1/api/v1"
  const ok = (data: unknown) => ({ success: true, data })
  const headers = (entries: Record<string, string> = {}) => new Headers({ "x-request-id": "r1", ...entries })

  it("passes a declared status, body and headers, and skips a path the API does not have", () => {
    checkApiCall({
      method: "GET",
      url: `${base}/requests?page=1`,
      status: 200,
      headers: headers({ etag: '"abc"', "cache-control": "private, no-cache", "ratelimit-limit": "100" }),
      body: ok({ requests: [], pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1 } })
    })
    checkApiCall({ method: "GET", url: `${base}/requests`, status: 304, headers: headers(), body: undefined })
    checkApiCall({ method: "GET", url: `${base}/nowhere`, status: 404, headers: headers(), body: undefined })
    expect(takeApiViolations()).toEqual([])
  })

  it("flags an undeclared status, a body off its schema, an undeclared header and a body the server took but the document refuses", () => {
    checkApiCall({ method: "GET", url: `${base}/requests`, status: 418, headers: headers(), body: undefined })
    checkApiCall({ method: "GET", url: `${base}/requests`, status: 200, headers: headers(), body: ok({ requests: 3 }) })
    checkApiCall({
      method: "GET",
      url: `${base}/users/me`,
      status: 401,
      headers: headers({ "idempotent-replayed": "true" }),
      body: { success: false, error: { code: "UNAUTHORIZED", message: "No", details: {} } }
    })
    checkApiCall({
      method: "POST",
      url: `${base}/ratings`,
      requestJson: { deal_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f", rating: 7 },
      status: 201,
      headers: headers(),
      body: undefined
    })
    const violations = takeApiViolations()
    expect(violations).toHaveLength(4)
    expect(violations[0]).toContain("does not declare")
    expect(violations[1]).toContain("does not match its schema")
    expect(violations[2]).toContain("idempotent-replayed")
    expect(violations[3]).toContain("the server accepted a body the document refuses")
  })
})
