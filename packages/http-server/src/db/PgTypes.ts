/*
 * Text-format parsers for the values the pg driver hands back. The driver's defaults live in `pg-types`,
 * which is not a dependency of this package, and they return NUMERIC (and int8, e.g. `count(*)`) as
 * strings — but the API answers budgets, prices and rating averages as JSON numbers. So every query, the
 * repositories' and the read models' alike, gets numbers here. Types not listed stay strings.
 */

type Parser = (value: string) => unknown

const toNumber: Parser = (value) => Number(value)
const toBoolean: Parser = (value) => value === "t" || value === "true"
const toJson: Parser = (value) => JSON.parse(value)
const asText: Parser = (value) => value

const timestampPattern =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/

/** Postgres' ISO output (`2024-05-01 09:30:00.123456+03`) to a Date; without an offset it is local time. */
export const parseTimestamp = (value: string): Date => {
  const m = timestampPattern.exec(value)
  if (m === null) return new Date(Number.NaN)
  const [, y, mo, d, h, mi, s, fraction, sign, offH, offM, offS, bc] = m
  const year = bc === undefined ? Number(y) : 1 - Number(y)
  const ms = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000)
  const date =
    sign === undefined
      ? new Date(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
      : new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms))
  if (sign === undefined) {
    date.setFullYear(year)
    return date
  }
  date.setUTCFullYear(year)
  const offsetSeconds = Number(offH) * 3600 + Number(offM ?? 0) * 60 + Number(offS ?? 0)
  return new Date(date.getTime() - (sign === "+" ? 1 : -1) * offsetSeconds * 1000)
}

/** A Postgres array literal (`{1,NULL,"a,b",{2,3}}`) to nested JS arrays, each element parsed by `element`. */
export const parseArray =
  (element: Parser) =>
  (value: string): unknown => {
    let position = 0
    const parseLevel = (): Array<unknown> => {
      const items: Array<unknown> = []
      position++ // the opening brace
      while (position < value.length) {
        const char = value[position]
        if (char === "}") {
          position++
          return items
        }
        if (char === ",") {
          position++
        } else if (char === "{") {
          items.push(parseLevel())
        } else if (char === '"') {
          let text = ""
          position++
          while (value[position] !== '"') {
            if (value[position] === "\\") position++
            text += value[position]
            position++
          }
          position++
          items.push(element(text))
        } else {
          const start = position
          while (value[position] !== "," && value[position] !== "}") position++
          const raw = value.slice(start, position)
          items.push(raw === "NULL" ? null : element(raw))
        }
      }
      return items
    }
    // An array with explicit bounds starts `[0:1]={…}`.
    position = value.indexOf("{")
    return parseLevel()
  }

const scalarParsers: Record<number, Parser> = {
  16: toBoolean, // bool
  20: toNumber, // int8: counts and sums; no column of ours is bigint
  21: toNumber, // int2
  23: toNumber, // int4
  26: toNumber, // oid
  114: toJson, // json
  700: toNumber, // float4
  701: toNumber, // float8
  1114: parseTimestamp, // timestamp
  1184: parseTimestamp, // timestamptz
  1700: toNumber, // numeric
  3802: toJson // jsonb
}

const arrayParsers: Record<number, Parser> = {
  199: parseArray(toJson), // json[]
  1000: parseArray(toBoolean), // bool[]
  1005: parseArray(toNumber), // int2[]
  1007: parseArray(toNumber), // int4[]
  1009: parseArray(asText), // text[]
  1015: parseArray(asText), // varchar[]
  1016: parseArray(toNumber), // int8[]
  1021: parseArray(toNumber), // float4[]
  1022: parseArray(toNumber), // float8[]
  1115: parseArray(parseTimestamp), // timestamp[]
  1185: parseArray(parseTimestamp), // timestamptz[]
  1231: parseArray(toNumber), // numeric[]
  2951: parseArray(asText), // uuid[]
  3807: parseArray(toJson) // jsonb[]
}

/** The `types` option of `PgClient`: numbers as numbers, timestamps as Dates, JSON parsed. */
export const pgTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    format === "binary" ? (value: unknown) => value : (scalarParsers[oid] ?? arrayParsers[oid] ?? asText)
}
