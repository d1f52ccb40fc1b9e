import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { type Tables, UniqueViolation } from "./Store.js"

/** The rows of a table that match, in no particular order. */
export const rowsWhere = <V>(rows: HashMap.HashMap<string, V>, matches: (row: V) => boolean): Array<V> =>
  Array.from(HashMap.values(rows)).filter(matches)

/** The one row of a table that matches, if any (the callers' predicates name a unique key). */
export const rowWhere = <V>(rows: HashMap.HashMap<string, V>, matches: (row: V) => boolean): Option.Option<V> =>
  Option.map(
    HashMap.findFirst(rows, (row) => matches(row)),
    ([, row]) => row
  )

/** Newest first by creation time, then by id descending: the order of the SQL adapters' `ORDER BY created_at DESC, id DESC`. */
export const newestFirst = <R extends { readonly id: string; readonly createdAt: Date }>(a: R, b: R): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** Answers `value` with the tables unchanged: a write that found nothing to change. */
export const unchanged = <A, T>(value: A, tables: T): readonly [A, T] => [value, tables]

/** Answers the tables with `key` set to `value` in `table`, or throws {@link UniqueViolation} when `key` is taken. */
export const insertNew = <K extends keyof Tables, V>(
  tables: Tables,
  table: K,
  key: string,
  value: V,
  constraint: string
): Tables => {
  const rows = tables[table] as unknown as HashMap.HashMap<string, V>
  if (HashMap.has(rows, key)) throw new UniqueViolation({ constraint })
  return { ...tables, [table]: HashMap.set(rows, key, value) }
}

/** Writes `row` over the stored row of the same id, keeping the columns an update never changes; no row, no write. */
export const updateRow =
  <K extends "sellerProfiles" | "requests" | "deals" | "reports", V extends { readonly id: string }>(
    table: K,
    row: V,
    immutable: ReadonlyArray<keyof V>
  ) =>
  (tables: Tables): readonly [undefined, Tables] => {
    const rows = tables[table] as unknown as HashMap.HashMap<string, V>
    return Option.match(HashMap.get(rows, row.id), {
      onNone: () => unchanged(undefined, tables),
      onSome: (stored) => {
        const kept = Object.fromEntries(immutable.map((key) => [key, stored[key]]))
        return [undefined, { ...tables, [table]: HashMap.set(rows, row.id, { ...row, ...kept }) }]
      }
    })
  }
