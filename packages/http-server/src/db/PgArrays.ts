/**
 * A text[] literal: sent as one parameter of unknown type, PostgreSQL and PGlite read it as the type it is cast
 * to (`::uuid[]`, `::text[]`). Every element is quoted, so the literal stays whole whatever it holds. One array
 * parameter instead of a list of them keeps a statement's text, and so its planning, the same at every size.
 */
export const textArrayLiteral = (values: ReadonlyArray<string>): string =>
  `{${values.map((value) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`
