import * as Schema from "effect/Schema"
import { fieldProblem } from "./Problems.js"

/*
 * Field schemas whose failures carry a problem of the catalogue (`http/Problems.ts`), so validation `details`
 * can be localized.
 */

export {
  DateTimeField,
  FreeText,
  isCleanFreeText,
  isCleanLine,
  Money,
  NumberField,
  OneOf,
  Optional,
  StringField,
  Text,
  UuidField
} from "@talab/core"

import { Money, NumberField, snakeCaseKeys } from "@talab/core"

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

/**
 * An amount of money as a query parameter (`2500`, `2500.5`): the money rules of a JSON amount, written in
 * plain decimal digits.
 */
export const MoneyParam = Schema.compose(
  Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}(\.[0-9]{1,16})?$/, fieldProblem("must_be_number"))),
  Schema.NumberFromString
).pipe(Schema.compose(Money), Schema.annotations({ jsonSchema: { type: "number", exclusiveMinimum: 0 } }))

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

/**
 * The payload of a use-case input: the input's own schema, its keys spelled in snake_case on the wire, so the
 * handler passes what it decoded on unchanged and the field rules are stated once, in core.
 */
export const PayloadOf = <F extends Schema.Struct.Fields>(input: Schema.Struct<F>) =>
  Payload(snakeCaseKeys(input.fields).fields)

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
