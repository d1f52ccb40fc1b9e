import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A field stored under a snake_case column name. */
export const column = <const Key extends string, S extends Schema.Schema.All>(key: Key, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(key))

export const NullableString = Schema.NullOr(Schema.String)
export const Timestamp = Schema.DateFromSelf
export const NullableTimestamp = Schema.NullOr(Schema.DateFromSelf)

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: string) => uuidPattern.test(value)

/** Ids come from paths and bodies: one that is not a uuid finds nothing instead of failing the uuid cast. */
export const byUuid =
  <A, E, R>(find: (id: string) => Effect.Effect<Option.Option<A>, E, R>) =>
  (id: string): Effect.Effect<Option.Option<A>, E, R> =>
    isUuid(id) ? find(id) : Effect.succeedNone
