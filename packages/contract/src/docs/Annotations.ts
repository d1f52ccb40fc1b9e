import * as Context from "effect/Context"
import type { ErrorCode } from "../errors/Catalogue.js"

/*
 * What the reference says of an endpoint beyond its summary and description (OpenApi.Summary and
 * OpenApi.Description): read by OpenApiDocument.ts into the operation's error table and examples.
 */

/** When the operation answers each code it names; the codes it does not name are told as the catalogue says. */
export class ErrorCases extends Context.Tag("@talab/contract/ErrorCases")<
  ErrorCases,
  Readonly<Partial<Record<ErrorCode, string>>>
>() {}

/** Fields of the request example that differ from the one made from the payload's schema. */
export class RequestExample extends Context.Tag("@talab/contract/RequestExample")<
  RequestExample,
  Readonly<Record<string, unknown>>
>() {}

/** Who may call the operations of the admin groups. */
export const adminOnly = "Admins only (phone numbers in `ADMIN_PHONE_NUMBERS`)."
