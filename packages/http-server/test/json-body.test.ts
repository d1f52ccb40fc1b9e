import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, NestingScanner, nestsDeeperThan } from "../src/http/JsonBody.js"

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

describe("NestingScanner", () => {
  const tricky = fc.constantFrom('"', "\\", '\\"', "[", "{", "]", "}", "\\\\", "ع", 'a"[{')
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.array(tricky, { maxLength: 6 }).map((parts) => parts.join("")),
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 3 })
    )
  })).node

  it("gives the same answer however the bytes are cut into pieces", () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (v, max, cuts) => {
        const bytes = Buffer.from(JSON.stringify(v), "utf8")
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
        const scanner = new NestingScanner(max)
        let tooDeep = false
        let from = 0
        for (const point of [...points, bytes.length]) {
          tooDeep = scanner.feed(bytes.subarray(from, point)) || tooDeep
          if (tooDeep) break
          from = point
        }
        expect(tooDeep).toBe(nestsDeeperThan(JSON.stringify(v), max))
      }),
      { numRuns: 1000 }
    )
  })

  it("carries an escaping backslash over the cut between two pieces", () => {
    const scanner = new NestingScanner(1)
    expect(scanner.feed(Buffer.from('{"a\\'))).toBe(false)
    // The quote that opens this piece is escaped: the brackets after it are still inside the string.
    expect(scanner.feed(Buffer.from('"[[[", "b": 1}'))).toBe(false)
    expect(scanner.feed(Buffer.from("[["))).toBe(true)
  })
})
