import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  codesOfStatus,
  type ErrorCode,
  type ErrorStatus,
  errorMessages,
  errorResponseOf,
  IdempotencyKeyReusedResponse,
  isErrorCode,
  statusOfCode
} from "../src/index.js"

/** decisions.md section 6 status by status, plus UPGRADE_REQUIRED of GET /ws and the idempotency codes of POSTs. */
const codesBySpecifiedStatus: Record<number, ReadonlyArray<string>> = {
  400: ["VALIDATION_ERROR"],
  401: ["UNAUTHORIZED", "INVALID_OTP", "OTP_EXPIRED", "OTP_ATTEMPTS_EXCEEDED", "INVALID_REFRESH_TOKEN"],
  403: ["FORBIDDEN", "SELLER_NOT_APPROVED"],
  404: ["NOT_FOUND"],
  409: ["IDEMPOTENCY_KEY_IN_USE"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  422: [
    "REQUEST_NOT_ACTIVE",
    "REQUEST_ALREADY_CLOSED",
    "DUPLICATE_PENDING_OFFER",
    "OFFER_ALREADY_ACCEPTED",
    "OFFER_NOT_PENDING",
    "CANNOT_OFFER_ON_OWN_REQUEST",
    "DEAL_NOT_ACTIVE",
    "REPORT_NOT_PENDING",
    "SELLER_PROFILE_EXISTS",
    "SELLER_PROFILE_NOT_PENDING",
    "CANNOT_REPORT_SELF",
    "OFFER_EXPIRED",
    "REQUEST_EXPIRED",
    "REQUEST_ALREADY_EXTENDED",
    "ALERT_RULE_LIMIT_REACHED",
    "IDEMPOTENCY_KEY_REUSED"
  ],
  426: ["UPGRADE_REQUIRED"],
  429: ["RATE_LIMITED"],
  500: ["INTERNAL_ERROR"],
  503: ["SERVICE_UNAVAILABLE"]
}

const codes = Object.keys(statusOfCode) as Array<ErrorCode>

describe("the table of error codes", () => {
  it("gives every code the status decisions.md gives it, and has no other code", () => {
    for (const [status, specified] of Object.entries(codesBySpecifiedStatus)) {
      expect([...codesOfStatus(Number(status) as ErrorStatus)].sort(), status).toEqual([...specified].sort())
    }
    expect([...codes].sort()).toEqual(Object.values(codesBySpecifiedStatus).flat().sort())
  })

  it("lists a status's codes in the table's order, and knows its codes from any other string", () => {
    expect(codesOfStatus(401)).toEqual([
      "UNAUTHORIZED",
      "INVALID_OTP",
      "OTP_EXPIRED",
      "OTP_ATTEMPTS_EXCEEDED",
      "INVALID_REFRESH_TOKEN"
    ])
    expect(codesOfStatus(404)).toEqual(["NOT_FOUND"])
    expect(codes.every(isErrorCode)).toBe(true)
    for (const notACode of ["not_found", "toString", "__proto__", "", 404, null])
      expect(isErrorCode(notACode)).toBe(false)
  })

  it("has a message in Arabic and English for every code", () => {
    expect(Object.keys(errorMessages).sort()).toEqual([...codes].sort())
    for (const code of codes) {
      expect(errorMessages[code].ar.length, code).toBeGreaterThan(0)
      expect(errorMessages[code].en.length, code).toBeGreaterThan(0)
    }
  })

  it.each(codes.filter((code) => code !== "UPGRADE_REQUIRED"))(
    "%s becomes the response class of its status, which encodes it as the envelope",
    (code) => {
      const body = { success: false as const, error: { code, message: "m", details: {} } }
      const response = errorResponseOf(code, body)
      const Response = response.constructor as unknown as Schema.Schema<any, any>
      expect(HttpApiSchema.getStatusError(Response)).toBe(statusOfCode[code])
      expect(Schema.encodeSync(Response)(response)).toEqual(body)
      if (code === "IDEMPOTENCY_KEY_REUSED") expect(response).toBeInstanceOf(IdempotencyKeyReusedResponse)
    }
  )
})
