import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  codesOfStatus,
  type ErrorCode,
  errorMessages,
  errorResponseOf,
  IdempotencyKeyReusedResponse,
  isErrorCode,
  statusOfCode
} from "../src/index.js"

/** decisions.md section 6, plus UPGRADE_REQUIRED of GET /ws and the idempotency codes of every POST. */
const specified: Record<string, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INVALID_OTP: 401,
  OTP_EXPIRED: 401,
  OTP_ATTEMPTS_EXCEEDED: 401,
  INVALID_REFRESH_TOKEN: 401,
  FORBIDDEN: 403,
  SELLER_NOT_APPROVED: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_NOT_ACTIVE: 422,
  REQUEST_ALREADY_CLOSED: 422,
  DUPLICATE_PENDING_OFFER: 422,
  OFFER_ALREADY_ACCEPTED: 422,
  OFFER_NOT_PENDING: 422,
  CANNOT_OFFER_ON_OWN_REQUEST: 422,
  DEAL_NOT_ACTIVE: 422,
  REPORT_NOT_PENDING: 422,
  SELLER_PROFILE_EXISTS: 422,
  SELLER_PROFILE_NOT_PENDING: 422,
  CANNOT_REPORT_SELF: 422,
  OFFER_EXPIRED: 422,
  REQUEST_EXPIRED: 422,
  REQUEST_ALREADY_EXTENDED: 422,
  ALERT_RULE_LIMIT_REACHED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  UPGRADE_REQUIRED: 426,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503
}

const codes = Object.keys(statusOfCode) as Array<ErrorCode>

describe("the table of error codes", () => {
  it("gives every code the status decisions.md gives it, and has no other code", () => {
    expect(statusOfCode).toEqual(specified)
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
