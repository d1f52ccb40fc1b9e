import { expect } from "vitest"
import type { Response } from "./harness.js"

export const ARABIC = /[\u0600-\u06FF]/
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Checks the error envelope: status, code, a message, and (when given) exactly the fields of `details`. */
export const expectError = (
  response: Response<any>,
  status: number,
  code: string,
  detailFields?: ReadonlyArray<string>
) => {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code })
  expect(response.body.success).toBe(false)
  expect(typeof response.body.error.message).toBe("string")
  expect(response.body.error.message.length).toBeGreaterThan(0)
  expect(typeof response.body.error.details).toBe("object")
  if (detailFields !== undefined)
    expect(Object.keys(response.body.error.details).sort()).toEqual([...detailFields].sort())
  return response.body.error as { code: string; message: string; details: Record<string, Array<string>> }
}

/** `+966 50-123 4567` for `+966501234567`: how people type numbers. */
export const spacedAndDashed = (e164: string) =>
  `${e164.slice(0, 4)} ${e164.slice(4, 6)}-${e164.slice(6, 9)} ${e164.slice(9)}`
