import { snakeCase } from "@talab/core"
import * as Schema from "effect/Schema"

export const Timestamp = Schema.DateFromSelf

/** The names of a struct's fields but `except`: what a select list reads for the struct. */
export const fieldNames = (struct: { readonly fields: object }, ...except: ReadonlyArray<string>) =>
  Object.keys(struct.fields).filter((name) => !except.includes(name))

/**
 * A select list naming each field's column after the field (`r.product_brand AS "productBrand"`), so rows come
 * back in the entity's own field names and need no mapping. `table` is the alias the query gives the table;
 * with `into`, the names are `into.field` (`r.id AS "request.id"`), for `nested` to gather into an object.
 */
export const columnsAs = <K extends string>(table: string, fields: ReadonlyArray<K>, into?: string) =>
  fields.map((field) => `${table}.${snakeCase(field)} AS "${into === undefined ? "" : `${into}.`}${field}"`).join(", ")

/**
 * A row whose `a.b` names are gathered into objects (`{ "request.id": 1 }` → `{ request: { id: 1 } }`, and
 * `a.b.c` two deep): how a query returns an entity with the parts of its neighbours the view shows. An object
 * whose columns are all null is null: the outer join found no row.
 */
export const nested = <A>(row: Record<string, unknown>): A => gather(row) as A

const gather = (row: Record<string, unknown>): Record<string, unknown> => {
  const result: Record<string, unknown> = {}
  let groups: Record<string, Record<string, unknown>> | undefined
  for (const name in row) {
    const dot = name.indexOf(".")
    if (dot === -1) {
      result[name] = row[name]
      continue
    }
    const outer = name.slice(0, dot)
    groups ??= {}
    groups[outer] ??= {}
    groups[outer][name.slice(dot + 1)] = row[name]
  }
  for (const outer in groups) {
    const group = gather(groups[outer]!)
    result[outer] = Object.values(group).every((value) => value === null) ? null : group
  }
  return result
}
