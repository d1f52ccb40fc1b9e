import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../src/http/JsonBody.js"

/** The nesting depth of a parsed JSON value (the value itself counts when it is an array or object). */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0

describe("nestsDeeperThan", () => {
  it("agrees with the depth of the parsed value, whatever the strings hold", () => {
    const tricky = fc.constantFrom('"', "\\", '\\"', "[", "{", "]", "}", "\\\\", 'a"[{')
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.array(tricky, { maxLength: 4 }).map((parts) => parts.join("")),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(
          fc.array(tricky, { maxLength: 4 }).map((parts) => parts.join("")),
          tie("node"),
          { maxKeys: 3 }
        )
      )
    })).node
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (v, max) => {
        const text = JSON.stringify(v)
        expect(nestsDeeperThan(text, max)).toBe(depthOf(JSON.parse(text)) > max)
      }),
      { numRuns: 500 }
    )
  })

  it("takes 64 levels and refuses 65", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true)
  })

  it("stops at the first level too deep, in a megabyte of [", () => {
    expect(nestsDeeperThan("[".repeat(1024 * 1024), MAX_JSON_DEPTH)).toBe(true)
  })

  it("leaves an unterminated string to the parser", () => {
    expect(nestsDeeperThan('["abc', MAX_JSON_DEPTH)).toBe(false)
  })
})
