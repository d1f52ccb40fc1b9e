import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Core from "@talab/core"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  codesOfStatus,
  type ErrorCode,
  errorCatalogue,
  errorMessages,
  errorResponseOf,
  isErrorCode,
  openApiDocument,
  statusOfCode
} from "../src/index.js"

const codes = Object.keys(errorCatalogue) as Array<ErrorCode>

/** The code of each error class of @talab/core that carries one (its domain errors), by class name. */
const coreErrorCodes: ReadonlyArray<readonly [string, unknown]> = Object.entries(Core).flatMap(([name, value]) => {
  if (typeof value !== "function" || !(value.prototype instanceof Error)) return []
  const error = new (value as new (args: object) => { readonly code?: unknown })({})
  return error.code === undefined ? [] : [[name, error.code] as const]
})

/** The status and the response class that encodes the envelope of `code`, through the contract's mapping. */
const answerOf = (code: ErrorCode) => {
  const body = { success: false as const, error: { code, message: "m", details: {} } }
  const response = errorResponseOf(code, body)
  const Response = response.constructor as unknown as Schema.Schema<any, any>
  return { status: HttpApiSchema.getStatusError(Response), encoded: Schema.encodeSync(Response)(response), body }
}

type Json = Record<string, any>
const document = openApiDocument() as Json
const codesOfSchema = (schema: Json | undefined): ReadonlyArray<string> => {
  if (schema?.anyOf) return schema.anyOf.flatMap(codesOfSchema)
  const named = schema?.$ref ? document.components.schemas[String(schema.$ref).split("/").pop()!] : schema
  return named?.properties?.error?.properties?.code?.enum ?? []
}
const codesOfResponse = (response: Json) => codesOfSchema(response.content?.["application/json"]?.schema)
const errorResponses = Object.values<Json>(document.paths)
  .flatMap((item) => Object.values<Json>(item))
  .flatMap((operation) =>
    Object.entries<Json>(operation.responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => ({ id: operation.operationId as string, status: Number(status), response }))
  )

describe("the error catalogue", () => {
  it("has every error class of @talab/core, answered with the catalogue's status", () => {
    expect(coreErrorCodes.length).toBeGreaterThan(20)
    for (const [name, code] of coreErrorCodes) {
      expect(isErrorCode(code), `${name} carries ${String(code)}`).toBe(true)
      expect(answerOf(code as ErrorCode).status, name).toBe(errorCatalogue[code as ErrorCode].status)
    }
  })

  it.each(codes.filter((code) => code !== "UPGRADE_REQUIRED"))(
    "answers %s with a response class of its status, which encodes it as the envelope",
    (code) => {
      const { status, encoded, body } = answerOf(code)
      expect(status).toBe(statusOfCode[code])
      expect(encoded).toEqual(body)
    }
  )

  it("is what the served document says: each error response lists codes of its status only", () => {
    for (const { id, status, response } of errorResponses) {
      const listed = codesOfResponse(response)
      expect(listed.length, `${id} ${status}`).toBeGreaterThan(0)
      for (const code of listed) expect(statusOfCode[code as ErrorCode], `${id} ${status} ${code}`).toBe(status)
      for (const example of Object.values<Json>(response.content["application/json"].examples)) {
        expect(example.value.error.message).toBe(errorCatalogue[example.value.error.code as ErrorCode].en)
      }
    }
  })

  it("has no code the REST API cannot answer, but the WebSocket upgrade's", () => {
    const answerable = new Set(errorResponses.flatMap(({ response }) => codesOfResponse(response)))
    expect(codes.filter((code) => !answerable.has(code))).toEqual(["UPGRADE_REQUIRED"])
  })

  it("gives every code its own message in Arabic and in English", () => {
    const arabicLetter = /[\u0600-\u06FF]/
    for (const code of codes) {
      expect(errorMessages[code].ar, code).toMatch(arabicLetter)
      expect(errorMessages[code].en.trim().length, code).toBeGreaterThan(0)
      expect(errorMessages[code].en, code).not.toMatch(arabicLetter)
    }
    for (const language of ["ar", "en"] as const) {
      const texts = codes.map((code) => errorMessages[code][language])
      expect(new Set(texts).size, language).toBe(codes.length)
    }
  })

  it("puts the general code of a status first, the one the reference shows when an operation names none", () => {
    expect(codesOfStatus(401)[0]).toBe("UNAUTHORIZED")
    expect(codesOfStatus(403)[0]).toBe("FORBIDDEN")
  })

  it("knows its codes from any other value, prototype keys included", () => {
    expect(codes.every(isErrorCode)).toBe(true)
    for (const notACode of ["not_found", "toString", "__proto__", "constructor", "", 404, null, undefined]) {
      expect(isErrorCode(notACode), String(notACode)).toBe(false)
    }
  })
})
