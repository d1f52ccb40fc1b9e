import * as Schema from "effect/Schema"
import type { FieldProblem } from "./Errors.js"

/*
 * The field rules of every use-case input, as schemas. A failing rule carries its problem (a message key and its
 * parameters) as an annotation, so an edge that decodes these schemas can say what is wrong in any language.
 */

/** The annotation id under which a field schema keeps the {@link FieldProblem} its failure means. */
export const FieldProblemId: unique symbol = Symbol.for("@talab/core/FieldProblem")

/** The annotations of a schema whose failure is the problem `key` (with `params`). */
export const fieldRule = (key: string, params?: Readonly<Record<string, string | number>>) => ({
  [FieldProblemId]: (params ? { key, params } : { key }) satisfies FieldProblem
})

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** An ISO 8601 date-time with its offset (`2025-01-31T10:00:00.000Z`), decoded to a Date. */
export const DateTimeField = Schema.transform(
  Schema.String.pipe(
    Schema.filter((s) => ISO_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)), fieldRule("timestamp"))
  ).annotations({ jsonSchema: { type: "string", format: "date-time" } }),
  Schema.DateFromSelf,
  { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() }
)

/** A string; NUL characters are refused here, since PostgreSQL cannot store them in text. */
export const StringField = Schema.String.annotations(fieldRule("must_be_string")).pipe(
  Schema.filter((s) => !s.includes("\u0000"), fieldRule("invalid_characters"))
)

/** Length in characters (Unicode code points), as PostgreSQL's char_length counts them. */
const characters = (s: string) => {
  let count = 0
  for (const _ of s) count++
  return count
}

/** A JSON number. */
export const NumberField = Schema.Number.annotations(fieldRule("must_be_number"))

/*
 * Characters refused in texts (docs/DECISIONS.md, "Text values"). A lone surrogate cannot be stored as UTF-8;
 * controls (C0, DEL, C1) and bidi overrides/isolates can disguise what a text says where it is shown; U+2028/U+2029
 * end lines in JavaScript clients. Single-line texts also refuse line breaks, tabs and the invisible
 * separators that make two names look alike (U+200B, U+2060-U+2064, U+FEFF); U+200C/U+200D (needed by Arabic,
 * Persian and emoji sequences) and the direction marks U+200E/U+200F/U+061C are allowed in both.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u2028\u2029]/
const SINGLE_LINE_REFUSED = /[\p{Cc}\u200B\u2060-\u2064\uFEFF]/u
const FREE_TEXT_REFUSED = /(?![\t\n\r])\p{Cc}|\r(?!\n)/u

/** Whether a text has none of the characters refused in a single-line text (a name, a city, a brand). */
export const isCleanLine = (s: string) =>
  !LONE_SURROGATE.test(s) && !BIDI_CONTROL.test(s) && !SINGLE_LINE_REFUSED.test(s)
/** Whether a text has none of the characters refused in free text (notes, descriptions, messages). */
export const isCleanFreeText = (s: string) =>
  !LONE_SURROGATE.test(s) && !BIDI_CONTROL.test(s) && !FREE_TEXT_REFUSED.test(s)

const TrimmedText = (min: number, max: number, clean: (s: string) => boolean) =>
  Schema.transform(
    // The limits hold after trimming (decisions.md), which JSON Schema cannot say: the raw text has no maximum.
    StringField.annotations({
      jsonSchema: { minLength: min, description: `${min} to ${max} characters after trimming surrounding spaces` }
    }),
    Schema.String.pipe(
      Schema.filter(clean, fieldRule("invalid_characters")),
      Schema.filter((s) => characters(s) >= min, fieldRule("too_short", { min })),
      Schema.filter((s) => characters(s) <= max, fieldRule("too_long", { max }))
    ),
    { strict: true, decode: (s) => s.trim(), encode: (s) => s }
  )

/** A single-line text (a name, a district, a brand), trimmed: no line breaks, tabs, controls or bidi overrides. */
export const Text = (min: number, max: number) => TrimmedText(min, max, isCleanLine)

/** A free text (notes, a description, a message), trimmed: keeps line breaks (\n, \r\n) and tabs. */
export const FreeText = (min: number, max: number) => TrimmedText(min, max, isCleanFreeText)

/** The largest amount of money anything may state. */
export const MAX_AMOUNT = 1_000_000_000

/**
 * An amount of money: > 0, at most 2 decimals, at most {@link MAX_AMOUNT}. A number has at most two decimals
 * exactly when it is the double nearest some k/100, that is when `round(n * 100) / 100` gives it back; a
 * looser check (`|n * 100 - round(n * 100)| < ε`) lets 1e-9 and 1.000000001 through, which NUMERIC(12, 2)
 * would round to something else than what was said.
 */
export const Money = NumberField.pipe(
  Schema.filter(Number.isFinite, fieldRule("must_be_number")),
  Schema.filter((n) => n > 0, fieldRule("positive")),
  Schema.filter((n) => n <= MAX_AMOUNT, fieldRule("max_amount", { max: MAX_AMOUNT })),
  Schema.filter((n) => Math.round(n * 100) / 100 === n, fieldRule("two_decimals"))
).annotations({
  // No `multipleOf: 0.01`: validators test it in floating point, and 19.99 / 0.01 is not an integer there.
  jsonSchema: {
    exclusiveMinimum: 0,
    maximum: MAX_AMOUNT,
    description: `An amount of money: more than 0, at most ${MAX_AMOUNT}, with at most 2 decimals`
  }
})

/** One of a fixed set of strings. */
export const OneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...(values as unknown as [L[number]]))

/** A UUID, as ids are written. */
export const UuidField = Schema.UUID.annotations(fieldRule("uuid"))

/** An optional field; `null` counts as absent. */
export const Optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { nullable: true })
