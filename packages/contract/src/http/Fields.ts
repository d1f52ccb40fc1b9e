import * as Schema from "effect/Schema"
import { fieldProblem } from "./Problems.js"

/*
 * Field schemas whose failures carry a problem of the catalogue (`http/Problems.ts`), so validation `details`
 * can be localized.
 */

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** An ISO 8601 date-time with its offset (`2025-01-31T10:00:00.000Z`) in a body, decoded to a Date. */
export const DateTimeField = Schema.transform(
  Schema.String.pipe(
    Schema.filter((s) => ISO_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)), fieldProblem("timestamp"))
  ).annotations({ jsonSchema: { type: "string", format: "date-time" } }),
  Schema.DateFromSelf,
  { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() }
)

/** A string; NUL characters are refused here, since PostgreSQL cannot store them in text. */
export const StringField = Schema.String.annotations(fieldProblem("must_be_string")).pipe(
  Schema.filter((s) => !s.includes("\u0000"), fieldProblem("invalid_characters"))
)

/** Length in characters (Unicode code points), as PostgreSQL's char_length counts them. */
const characters = (s: string) => {
  let count = 0
  for (const _ of s) count++
  return count
}
/** A JSON number; anything else fails with the problem `must_be_number`. */
export const NumberField = Schema.Number.annotations(fieldProblem("must_be_number"))

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
/** Free text keeps tabs, \n and \r\n; a lone \r or any other control is refused. */
const FREE_TEXT_REFUSED = /(?![\t\n\r])\p{Cc}|\r(?!\n)/u

/** Whether a text has none of the characters refused in a single-line text (a name, a city, a brand). */
export const isCleanLine = (s: string) =>
  !LONE_SURROGATE.test(s) && !BIDI_CONTROL.test(s) && !SINGLE_LINE_REFUSED.test(s)
/** Whether a text has none of the characters refused in free text (notes, descriptions, messages). */
export const isCleanFreeText = (s: string) =>
  !LONE_SURROGATE.test(s) && !BIDI_CONTROL.test(s) && !FREE_TEXT_REFUSED.test(s)

/** A string trimmed of surrounding white space, then checked for refused characters and between min and max characters. */
const TrimmedText = (min: number, max: number, clean: (s: string) => boolean) =>
  Schema.transform(
    StringField.annotations({ jsonSchema: { minLength: min, maxLength: max } }),
    Schema.String.pipe(
      Schema.filter(clean, fieldProblem("invalid_characters")),
      Schema.filter((s) => characters(s) >= min, fieldProblem("too_short", { min })),
      Schema.filter((s) => characters(s) <= max, fieldProblem("too_long", { max }))
    ),
    { strict: true, decode: (s) => s.trim(), encode: (s) => s }
  )

/** A single-line text (a name, a district, a brand): no line breaks, tabs, controls or bidi overrides. */
export const Text = (min: number, max: number) => TrimmedText(min, max, isCleanLine)

/** A free text (notes, a description, a message): keeps line breaks (\n, \r\n) and tabs, refuses other controls. */
export const FreeText = (min: number, max: number) => TrimmedText(min, max, isCleanFreeText)

const MAX_AMOUNT = 1_000_000_000

/**
 * An amount of money: > 0, at most 2 decimals, at most 1,000,000,000. A number has at most two decimals
 * exactly when it is the double nearest some k/100, that is when `round(n * 100) / 100` gives it back; a
 * looser check (`|n * 100 - round(n * 100)| < ε`) lets 1e-9 and 1.000000001 through, which NUMERIC(12, 2)
 * would round to something else than what the request said.
 */
export const Money = NumberField.pipe(
  Schema.filter(Number.isFinite, fieldProblem("must_be_number")),
  Schema.filter((n) => n > 0, fieldProblem("positive")),
  Schema.filter((n) => n <= MAX_AMOUNT, fieldProblem("max_amount", { max: MAX_AMOUNT })),
  Schema.filter((n) => Math.round(n * 100) / 100 === n, fieldProblem("two_decimals"))
)

/** One of a fixed set of strings; any other value is the problem `one_of`, read from the literals themselves. */
export const OneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...(values as unknown as [L[number]]))

/** A UUID, as ids are written in bodies and queries; anything else fails with the problem `uuid`. */
export const UuidField = Schema.UUID.annotations(fieldProblem("uuid"))

/** An optional field; `null` counts as absent. */
export const Optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/**
 * An integer query parameter in a range, with a default. It arrives as a string, but the OpenAPI document
 * describes it as the integer clients send (`type: integer` with its bounds), not as its wire form.
 */
export const IntParam = (min: number, max: number) =>
  Schema.compose(
    // Digits only: " 1", "+1", "1.0", "1e0", "0x1" are not how an integer is written in a query, so 400.
    Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}$/, fieldProblem("integer_range", { min, max }))),
    Schema.NumberFromString
  ).pipe(
    Schema.filter((n) => Number.isInteger(n) && n >= min && n <= max, {
      ...fieldProblem("integer_range", { min, max }),
      jsonSchema: { type: "integer", minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}) }
    })
  )

/** The largest seq a client may name (PostgreSQL's integer, the column's type). */
export const SEQ_MAX = 2_147_483_647

/** A message seq in a JSON body or frame: an integer from 0 (before the first message) to {@link SEQ_MAX}. */
export const SeqField = NumberField.pipe(
  Schema.filter((n) => Number.isInteger(n) && n >= 0 && n <= SEQ_MAX, {
    ...fieldProblem("integer_range", { min: 0, max: SEQ_MAX }),
    jsonSchema: { type: "integer", minimum: 0, maximum: SEQ_MAX }
  })
)

/** `page` and `per_page` query parameters. */
export const PageParams = {
  page: Schema.optional(IntParam(1, Number.MAX_SAFE_INTEGER)),
  per_page: Schema.optional(IntParam(1, 50))
}

/** Structs of payloads report every failing field, not only the first. */
export const Payload = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { errors: "all" }, ...fieldProblem("must_be_object") })

/**
 * The `pagination` of a paged list: the page shown, the page size, the number of items in all pages, and the last
 * page (1 when there are no items).
 */
export const Pagination = Schema.Struct({
  current_page: Schema.Int,
  per_page: Schema.Int,
  total: Schema.Int,
  last_page: Schema.Int
})

/** The `pagination` of page `page` of `perPage` items, out of `total` items. */
export const paginationOf = (page: number, perPage: number, total: number) => ({
  current_page: page,
  per_page: perPage,
  total,
  last_page: Math.max(1, Math.ceil(total / perPage))
})

/**
 * A payload whose fields are all optional may come with no body at all (read as null). A JSON body
 * of `null` is refused earlier, by the body check, so only a missing body reaches this.
 */
export const BodyOrNone = <S extends Schema.Schema.Any>(schema: S) => Schema.NullOr(schema)
