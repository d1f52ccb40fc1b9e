import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { IntParam, openApiDocument, PageParams, problemsOf } from "../src/index.js"

const queryParameter = (path: string, name: string) => {
  const operation = (openApiDocument() as any).paths[path].get
  return operation.parameters.find((p: { in: string; name: string }) => p.in === "query" && p.name === name)
}

describe("IntParam", () => {
  it("is documented as the integer clients send, with its bounds, not as its wire form (a string)", () => {
    expect(queryParameter("/api/v1/requests", "page").schema).toEqual({ type: "integer", minimum: 1 })
    expect(queryParameter("/api/v1/requests", "per_page").schema).toEqual({ type: "integer", minimum: 1, maximum: 50 })
    expect(queryParameter("/api/v1/deals/my", "per_page").schema).toEqual({ type: "integer", minimum: 1, maximum: 50 })
    expect(queryParameter("/api/v1/conversations/{id}/messages", "limit").schema).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100
    })
  })

  it("still decodes the query string: an integer in range passes, anything else fails with integer_range", () => {
    const decode = Schema.decodeUnknownEither(Schema.Struct(PageParams))
    expect(decode({ page: "2", per_page: "50" })).toEqual(Either.right({ page: 2, per_page: 50 }))
    expect(decode({})).toEqual(Either.right({}))
    // Only digits: white space, signs, decimals, exponents and hex spell no query integer.
    for (const per_page of ["0", "51", "2.5", "abc", "", " 1", "1 ", "+1", "-1", "1.0", "1e1", "0x1", "\t2"]) {
      const failed = decode({ per_page })
      expect(Either.isLeft(failed), per_page).toBe(true)
    }
    const problems = Schema.decodeUnknownEither(IntParam(1, 50))("51").pipe(
      Either.flip,
      Either.map((error) => problemsOf(error.issue)),
      Either.getOrElse(() => [])
    )
    expect(problems).toEqual([{ path: [], key: "integer_range", params: { min: 1, max: 50 } }])
  })
})
