import { Schema } from "effect"

/*
 * Field schemas whose failures carry a message key of the catalogue, so validation `details` can be
 * localized. A message is encoded as `§key` or `§key§{json params}`.
 */
const MARK = "§"

export const problemMessage = (key: string, params?: Record<string, string | number>) =>
  params ? `${MARK}${key}${MARK}${JSON.stringify(params)}` : `${MARK}${key}`

/** Reads a message made by `problemMessage`, or undefined for a framework message. */
export const parseProblemMessage = (
  message: string
): { key: string; params?: Record<string, string | number> } | undefined => {
  if (!message.startsWith(MARK)) return undefined
  const [key = "invalid", params] = message.slice(1).split(MARK)
  return params ? { key, params: JSON.parse(params) } : { key }
}

const msg = (key: string, params?: Record<string, string | number>) => ({ message: () => problemMessage(key, params) })

/** A string; NUL characters are refused here, since PostgreSQL cannot store them in text. */
export const StringField = Schema.String.annotations(msg("must_be_string")).pipe(
  Schema.filter((s) => !s.includes("\u0000"), msg("invalid_characters"))
)

/** Length in characters (Unicode code points), as PostgreSQL's char_length counts them. */
const characters = (s: string) => {
  let count = 0
  for (const _ of s) count++
  return count
}
export const NumberField = Schema.Number.annotations(msg("must_be_number"))

/** A string trimmed of surrounding white space, then between min and max characters. */
export const Text = (min: number, max: number) =>
  Schema.transform(
    StringField.annotations({ jsonSchema: { minLength: min, maxLength: max } }),
    Schema.String.pipe(
      Schema.filter((s) => characters(s) >= min, msg("too_short", { min })),
      Schema.filter((s) => characters(s) <= max, msg("too_long", { max }))
    ),
    { strict: true, decode: (s) => s.trim(), encode: (s) => s }
  )

/** An amount of money: > 0, at most 2 decimals, at most 1,000,000,000. */
export const Money = NumberField.pipe(
  Schema.filter((n) => Number.isFinite(n) && n > 0, msg("positive")),
  Schema.filter((n) => n <= 1_000_000_000, msg("max_amount", { max: 1_000_000_000 })),
  Schema.filter((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, msg("two_decimals"))
)

/** One of a fixed set of strings. */
export const OneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...(values as unknown as [L[number]])).annotations(msg("one_of", { values: values.join(", ") }))

export const UuidField = Schema.UUID.annotations(msg("uuid"))

/** An optional field; `null` counts as absent. */
export const Optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/**
 * An integer query parameter in a range, with a default. It arrives as a string, but the OpenAPI document
 * describes it as the integer clients send (`type: integer` with its bounds), not as its wire form.
 */
export const IntParam = (min: number, max: number) =>
  Schema.compose(
    // Digits only: " 1", "+1", "1.0", "1e0", "0x1" are not how an integer is written in a query, so 400.
    Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}$/, msg("integer_range", { min, max }))),
    Schema.NumberFromString
  ).pipe(
    Schema.filter((n) => Number.isInteger(n) && n >= min && n <= max, {
      ...msg("integer_range", { min, max }),
      jsonSchema: { type: "integer", minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}) }
    })
  )

/** `page` and `per_page` query parameters. */
export const PageParams = {
  page: Schema.optional(IntParam(1, Number.MAX_SAFE_INTEGER)),
  per_page: Schema.optional(IntParam(1, 50))
}

/** Structs of payloads report every failing field, not only the first. */
export const Payload = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { errors: "all" }, ...msg("must_be_object") })

export const Pagination = Schema.Struct({
  current_page: Schema.Int,
  per_page: Schema.Int,
  total: Schema.Int,
  last_page: Schema.Int
})

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
