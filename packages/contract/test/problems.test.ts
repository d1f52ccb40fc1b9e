import { Either, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  FieldProblemId,
  failureAt,
  fieldProblem,
  IdPath,
  Money,
  NumberField,
  OneOf,
  Optional,
  Payload,
  problemOf,
  problemsOf,
  StringField,
  Text,
  translate,
  UNKNOWN_ID
} from "../src/index.js"

/** The problems of decoding `input` with `schema` (none when it decodes). */
const problems = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknownEither(schema)(input).pipe(
    Either.flip,
    Either.map((error) => problemsOf(error.issue)),
    Either.getOrElse(() => [])
  )

describe("problemsOf", () => {
  it("reads a refinement's problem and its params from the schema's annotation", () => {
    expect(problems(Text(1, 5), "abcdefg")).toEqual([{ path: [], key: "too_long", params: { max: 5 } }])
    expect(problems(Text(1, 5), "   ")).toEqual([{ path: [], key: "too_short", params: { min: 1 } }])
    expect(problems(Money, -1)).toEqual([{ path: [], key: "positive" }])
    expect(problems(Money, 1.005)).toEqual([{ path: [], key: "two_decimals" }])
    // A wrong type is the keyword's problem, not the refinements' built on it.
    expect(problems(Money, "100")).toEqual([{ path: [], key: "must_be_number" }])
  })

  it("reads whatever problem a schema is annotated with, and `invalid` where none is", () => {
    const annotated = Schema.String.pipe(Schema.filter((s) => s.length === 3, fieldProblem("three_letters", { n: 3 })))
    expect(problems(annotated, "ab")).toEqual([{ path: [], key: "three_letters", params: { n: 3 } }])
    expect(problemOf(annotated.ast)).toEqual({ key: "three_letters", params: { n: 3 } })
    expect(annotated.ast.annotations[FieldProblemId]).toEqual({ key: "three_letters", params: { n: 3 } })

    const bare = Schema.String.pipe(Schema.filter((s) => s.length === 3))
    expect(problems(bare, "ab")).toEqual([{ path: [], key: "invalid" }])
    expect(problems(Schema.Number, "ab")).toEqual([{ path: [], key: "invalid" }])
  })

  it("gives each problem the path of the value at fault, nested objects included, in the schema's field order", () => {
    const body = Payload({
      name: Text(1, 100),
      device: Optional(Payload({ platform: OneOf("ios", "android"), name: Text(1, 100) }))
    })
    expect(problems(body, { name: 5, device: { platform: "ios", name: "" } })).toEqual([
      { path: ["name"], key: "must_be_string" },
      { path: ["device", "name"], key: "too_short", params: { min: 1 } },
      // The optional object is a union with null and undefined, which fail too (the REST details drop them).
      { path: ["device"], key: "invalid" },
      { path: ["device"], key: "invalid" }
    ])
  })

  it("calls a missing field `required`", () => {
    expect(problems(Payload({ phone_number: StringField, otp_code: StringField }), { otp_code: "1" })).toEqual([
      { path: ["phone_number"], key: "required" }
    ])
  })

  it("names the allowed values of a literal set, read from its literals", () => {
    expect(problems(OneOf("phone", "accessory"), "car")).toEqual([
      { path: [], key: "one_of", params: { values: "phone, accessory" } }
    ])
    expect(problems(OneOf("only"), "other")).toEqual([{ path: [], key: "one_of", params: { values: "only" } }])
    expect(problems(Payload({ role: Optional(OneOf("buyer", "seller")) }), { role: 3 })).toEqual([
      { path: ["role"], key: "one_of", params: { values: "buyer, seller" } },
      { path: ["role"], key: "invalid" },
      { path: ["role"], key: "invalid" }
    ])
    // A literal that is not a string (null here) is no value a client could be told to send.
    expect(problems(Schema.Literal(null), 3)).toEqual([{ path: [], key: "invalid" }])
  })

  it("calls a path id that is not a UUID the unknown id it is", () => {
    expect(problems(IdPath, { id: "not-a-uuid" })).toEqual([{ path: ["id"], key: UNKNOWN_ID }])
    expect(problems(IdPath, { id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301" })).toEqual([])
  })

  it("blames a rule across fields on the field its filter names, with the filter's problem", () => {
    const range = Payload({ low: NumberField, high: NumberField }).pipe(
      Schema.filter(
        (body, _, self) => body.high >= body.low || failureAt("high", body, self),
        fieldProblem("budget_max_below_min")
      )
    )
    expect(problems(range, { low: 5, high: 1 })).toEqual([{ path: ["high"], key: "budget_max_below_min" }])
    // The rule runs only once the fields themselves decode.
    expect(problems(range, { low: 5, high: "1" })).toEqual([{ path: ["high"], key: "must_be_number" }])
  })

  it("names the rule a core field schema broke, which the catalogue words, and never puts a key in a message", () => {
    const error = Schema.decodeUnknownEither(Text(1, 5))("abcdefg").pipe(Either.flip, Either.getOrThrow)
    const [problem] = problemsOf(error.issue)
    expect(problem).toEqual({ path: [], key: "too_long", params: { max: 5 } })
    expect(translate(problem!.key, "en", problem!.params)).toBe("Must be at most 5 characters")
    const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
    expect(issue?.message).not.toContain("too_long")
    expect(error.message).not.toContain("too_long")
  })
})
