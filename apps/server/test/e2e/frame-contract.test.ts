import { describe, expect, it } from "vitest"
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
