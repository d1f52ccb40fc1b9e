import * as Schema from "effect/Schema"

/**
 * Each entity is declared once, as a `Schema.Struct` of camelCase fields (`Offer`, `Deal`, …). Its stored row
 * and its JSON view are derived from those fields rather than written again: both name fields in snake_case,
 * which `snakeCaseKeys` derives, so a field added to the entity is added to its row and view.
 */

/** `createdAt` → `created_at`, at the type level. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Rest}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Rest>}`
  : S

/** `createdAt` → `created_at`. */
export const snakeCase = <S extends string>(name: S): SnakeCase<S> =>
  name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) as SnakeCase<S>

/** A field whose encoded side is named in snake_case; a name with no capital keeps its schema as is. */
export type SnakeCaseField<K extends string, S extends Schema.Schema.All> =
  K extends SnakeCase<K>
    ? S
    : Schema.PropertySignature<
        ":",
        Schema.Schema.Type<S>,
        SnakeCase<K>,
        ":",
        Schema.Schema.Encoded<S>,
        false,
        Schema.Schema.Context<S>
      >

/**
 * An entity's fields with each encoded side renamed to snake_case: the type of the struct {@link snakeCaseKeys} makes.
 */
export type SnakeCaseFields<Fields extends Schema.Struct.Fields> = {
  readonly [K in keyof Fields & string]: Fields[K] extends Schema.PropertySignature.All
    ? Fields[K]
    : Fields[K] extends Schema.Schema.All
      ? SnakeCaseField<K, Fields[K]>
      : never
}

/**
 * The same fields, each read from and written to its snake_case name: decoding `{ created_at }` gives
 * `{ createdAt }`, encoding the reverse.
 */
export const snakeCaseKeys = <Fields extends Schema.Struct.Fields>(
  fields: Fields
): Schema.Struct<SnakeCaseFields<Fields>> => {
  const renamed: Record<string, Schema.Struct.Field> = {}
  for (const [name, field] of Object.entries(fields)) {
    const key = snakeCase(name)
    const signature = Schema.isPropertySignature(field) ? field : Schema.propertySignature(field)
    renamed[name] = key === name ? field : (signature as Schema.PropertySignature.Any).pipe(Schema.fromKey(key))
  }
  return Schema.Struct(renamed) as unknown as Schema.Struct<SnakeCaseFields<Fields>>
}
