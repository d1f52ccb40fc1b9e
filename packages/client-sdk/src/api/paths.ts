import type { Client, FetchResponse, MaybeOptionalInit } from "openapi-fetch"
import type { components, operations, paths } from "../generated/schema.js"

/** The version prefix every REST path of the server starts with. */
export const API_PREFIX = "/api/v1"

type WithoutPrefix<P> = P extends `${typeof API_PREFIX}${infer Rest}` ? Rest : never

/**
 * Every REST endpoint of the Talab API, keyed by its path without the `/api/v1` prefix
 * (the way the spec writes them: `"/requests/{id}"`), generated from the server's OpenAPI document.
 */
export type ApiPaths = { [P in keyof paths as WithoutPrefix<P>]: paths[P] }

/** Schemas named in the OpenAPI document (`components.schemas`). */
export type ApiSchemas = components["schemas"]

/** Operations of the OpenAPI document keyed by operation id (`"auth.verifyOtp"`, …). */
export type ApiOperations = operations

/** The HTTP methods the Talab API uses. */
export type ApiMethod = "get" | "post" | "put" | "patch" | "delete"

/** The openapi-fetch client over {@link ApiPaths}. */
export type RawApiClient = Client<ApiPaths>

type MediaOf<C> = C extends Client<any, infer Media> ? Media : never

/** The paths that have an operation for `Method`. */
export type PathsWith<Method extends ApiMethod> = {
  [P in keyof ApiPaths]: ApiPaths[P] extends { [M in Method]: infer Operation }
    ? [Operation] extends [undefined | never]
      ? never
      : P
    : never
}[keyof ApiPaths]

/** The operation behind a path and method. */
type OperationOf<P extends keyof ApiPaths, Method extends ApiMethod> = NonNullable<ApiPaths[P][Method]>

/** The options (path and query parameters, body, headers, …) a call to `Method path` takes. */
export type RequestInitOf<P extends keyof ApiPaths, Method extends ApiMethod> = MaybeOptionalInit<ApiPaths[P], Method>

/** The success body of an operation: the envelope `{ success: true, data, message? }`. */
type SuccessBody<Operation extends Record<string | number, any>> = NonNullable<
  FetchResponse<Operation, {}, MediaOf<RawApiClient>>["data"]
>

/** The success body of `Method path`: `{ success: true, data, message? }`. */
export type ResponseBody<P extends PathsWith<Method>, Method extends ApiMethod> = SuccessBody<OperationOf<P, Method>>

/** The `data` of the success body of `Method path`. */
export type ResponseData<P extends PathsWith<Method>, Method extends ApiMethod> =
  ResponseBody<P, Method> extends {
    data: infer Data
  }
    ? Data
    : never

/** The JSON body `Method path` takes. */
export type RequestBody<P extends PathsWith<Method>, Method extends ApiMethod> =
  OperationOf<P, Method> extends {
    requestBody?: { content: { "application/json": infer Body } }
  }
    ? Body
    : never

type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T]

/** The optional-or-required second argument of a call, as openapi-fetch types it. */
type InitArgument<Init> = RequiredKeysOf<Init> extends never ? [init?: Init] : [init: Init]

/**
 * A typed call of one HTTP method: resolves with the success envelope, throws `TalabApiError` when the
 * server answers with an error and `TalabNetworkError` when it cannot be reached.
 */
export type CallMethod<Method extends ApiMethod> = <
  P extends PathsWith<Method>,
  Init extends RequestInitOf<P, Method> = RequestInitOf<P, Method>
>(
  path: P,
  ...init: InitArgument<Init>
) => Promise<ResponseBody<P, Method>>
