/*
 * Example values for the API reference, made from the JSON schemas of the document so they always match them
 * (Redocly checks every example against its schema): a field's name picks a realistic value, its schema
 * (enum, format, bounds) keeps it valid.
 */

import { ACCESS_TOKEN_TTL_SECONDS } from "@talab/core"

type Json = Record<string, any>

const EXAMPLE_TIME = "2026-03-01T09:30:00.000Z"

/** Realistic values by field name; used only when they fit the field's schema. */
const byName: Readonly<Record<string, unknown>> = {
  phone_number: "+966501234567",
  otp_code: "123456",
  name: "Sara",
  business_name: "Rawdah Mobiles",
  access_token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.signature",
  refresh_token: "9f2c4e1ab7d34f0c8e6a5b2d1c0f9e8d",
  token_type: "Bearer",
  product_brand: "Apple",
  product_model: "iPhone 15 Pro",
  location_district: "Al Rawdah",
  location_city: "Riyadh",
  notes: "256 GB, any colour",
  price: 3200,
  budget_min: 2500,
  budget_max: 3500,
  availability: "Today after 6 pm, Al Rawdah",
  condition_notes: "Used 8 months, no scratches",
  warranty_notes: "6 months shop warranty",
  message_text: "Is it still available?",
  message: "Done",
  review_text: "Exactly as described.",
  bio: "New and used phones since 2015.",
  reason: "The buyer found the phone elsewhere",
  description: "Did not come to the meeting point.",
  push_token: "fcm-device-token-123",
  device_token: "fcm-device-token-123",
  avatar_url: "https://api.talab.example/uploads/avatars/0b5e1c9a-2f4d-4e8b-9a3c-7d6e5f4a3b2c.webp",
  rating: 5,
  rating_avg: 4.75,
  rating_count: 12,
  offer_count: 3,
  unread_count: 1,
  total: 1,
  page: 1,
  per_page: 20,
  last_page: 1,
  expires_in: ACCESS_TOKEN_TTL_SECONDS
}

const uuids = [
  "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
  "7a1d9c4b-2e6f-4b8a-8c3d-1e2f3a4b5c6d",
  "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a",
  "e9d8c7b6-a5f4-4e3d-9c2b-1a0f9e8d7c6b"
]

const resolve = (schema: Json, root: Json): Json => {
  let current = schema
  for (let depth = 0; current?.$ref !== undefined && depth < 10; depth++) {
    const name = String(current.$ref).replace("#/components/schemas/", "")
    current = {
      ...root.components.schemas[name],
      ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== "$ref"))
    }
  }
  return current ?? {}
}

const fits = (value: unknown, schema: Json): boolean => {
  if (schema.enum !== undefined) return schema.enum.includes(value)
  switch (schema.type) {
    case "string":
      return (
        typeof value === "string" &&
        value.length >= (schema.minLength ?? 0) &&
        value.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY) &&
        (schema.pattern === undefined || new RegExp(schema.pattern).test(value))
      )
    case "number":
    case "integer":
      return (
        typeof value === "number" &&
        (schema.type === "number" || Number.isInteger(value)) &&
        value >= (schema.minimum ?? Number.NEGATIVE_INFINITY) &&
        value <= (schema.maximum ?? Number.POSITIVE_INFINITY)
      )
    default:
      return false
  }
}

/** An example value valid against `schema` (a schema of the document `root`); `name` is the field it is for. */
export const exampleOf = (schema: Json, root: Json, name?: string, counter = { uuid: 0 }): unknown => {
  const s = resolve(schema, root)
  if (s.examples?.length) return s.examples[0]
  if (s.const !== undefined) return s.const
  const branches: Array<Json> | undefined = s.anyOf ?? s.oneOf
  if (branches !== undefined) {
    const concrete = branches.find((branch) => resolve(branch, root).type !== "null") ?? branches[0]!
    return exampleOf(concrete, root, name, counter)
  }
  if (s.allOf !== undefined)
    return Object.assign({}, ...s.allOf.map((part: Json) => exampleOf(part, root, name, counter)))
  const named = name === undefined ? undefined : byName[name]
  if (named !== undefined && fits(named, s)) return named
  if (s.enum !== undefined) return s.enum[0]
  switch (s.type) {
    case "object": {
      const result: Json = {}
      for (const [key, property] of Object.entries<Json>(s.properties ?? {})) {
        result[key] = exampleOf(property, root, key, counter)
      }
      return result
    }
    case "array": {
      const count = Math.max(1, s.minItems ?? 1)
      return Array.from({ length: count }, () => exampleOf(s.items ?? {}, root, name, counter))
    }
    case "string":
      if (s.format === "uuid" || s.pattern?.includes("[0-9a-fA-F]{8}")) return uuids[counter.uuid++ % uuids.length]
      if (s.format === "date-time") return EXAMPLE_TIME
      if (s.format === "binary") return "(binary)"
      if (s.pattern === "^\\d{6}$") return "123456"
      return "text".padEnd(Math.max(4, s.minLength ?? 0), "x").slice(0, s.maxLength ?? 100)
    case "integer":
      return Math.max(s.minimum ?? 1, Math.min(s.maximum ?? 1, 1))
    case "number":
      return Math.max(s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? 1), 1)
    case "boolean":
      return true
    case "null":
      return null
    default:
      return null
  }
}
