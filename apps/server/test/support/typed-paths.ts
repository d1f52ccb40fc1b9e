import type { ApiMethod, ApiPaths, PathsWith } from "@talab/client-sdk/types"
import type { RequestOptions } from "./harness.js"

/*
 * The types of the tests' client (harness.ts): a concrete path as a test writes it (`/requests/${id}/offers?page=2`)
 * resolved to the operation the OpenAPI document names (`/requests/{id}/offers`), one segment at a time, so that
 * `/requests/my` is not taken for `/requests/{id}` and `/requests/{id}` does not swallow `/requests/{id}/offers`.
 */

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P

type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P]

type SegmentMatches<Concrete extends string, Template extends string> = Template extends `{${string}}`
  ? Concrete extends ""
    ? false
    : true
  : [Concrete] extends [Template]
    ? true
    : false

type SegmentsMatch<Concrete extends ReadonlyArray<string>, Template extends ReadonlyArray<string>> = Concrete extends [
  infer C extends string,
  ...infer CRest extends Array<string>
]
  ? Template extends [infer T extends string, ...infer TRest extends Array<string>]
    ? SegmentMatches<C, T> extends true
      ? SegmentsMatch<CRest, TRest>
      : false
    : false
  : Template extends []
    ? true
    : false

type Matching<P extends string, M extends ApiMethod> = {
  [T in PathsWith<M>]: SegmentsMatch<Segments<P>, Segments<T>> extends true ? T : never
}[PathsWith<M>]

/**
 * The document's path of a concrete one: itself when the document has it as is, else the template it fits. It
 * distributes over a union, so a path built from a union (`/admin/seller-profiles/${id}/${"approve" | "reject"}`)
 * names each operation it may be.
 */
type TemplateOf<P extends string, M extends ApiMethod> = P extends string
  ? WithoutQuery<P> extends PathsWith<M>
    ? WithoutQuery<P>
    : Matching<WithoutQuery<P>, M>
  : never

/** A query string a test appends to a path, or none: `/deals/my${query}` stays a typed path. */
export type Query = "" | `?${string}`

type Pattern<T extends string> = T extends `${infer Head}{${string}}${infer Rest}`
  ? `${Head}${string}${Pattern<Rest>}`
  : T

/**
 * The concrete paths that may name an operation of `M`, with or without a query: the constraint that makes the
 * compiler keep a test's path as a template literal type (`/offers/${string}`) rather than widen it to `string`.
 */
export type ApiPath<M extends ApiMethod> = {
  [T in PathsWith<M>]: Pattern<T> | `${Pattern<T>}?${string}`
}[PathsWith<M>]

type Operation<P extends string, M extends ApiMethod> = NonNullable<ApiPaths[TemplateOf<P, M>][M]>

type Responses<O> = O extends { responses: infer R } ? R : never

type JsonOf<R> = R extends { content: { "application/json": infer Body } } ? Body : never

type SuccessJson<O> = {
  [S in keyof Responses<O>]: `${S & number}` extends `2${string}` ? JsonOf<Responses<O>[S]> : never
}[keyof Responses<O>]

type ErrorJson<O> = {
  [S in keyof Responses<O>]: `${S & number}` extends `2${string}` ? never : JsonOf<Responses<O>[S]>
}[keyof Responses<O>]

type ErrorOf<O> = ErrorJson<O> extends { error: infer E } ? E : never

/**
 * The body of an answer to `M P`: the operation's success body and the error envelope's `error` in one type, so a
 * test reads `body.data.x` after checking a 2xx and `body.error.code` after checking an error, each checked against
 * the document (a test checks the status first: the type cannot know which one came). A union of paths answers
 * the union of their bodies.
 */
export type ResponseOf<P extends string, M extends ApiMethod> = P extends string
  ? SuccessJson<Operation<P, M>> & { readonly error: ErrorOf<Operation<P, M>> }
  : never

type JsonBodyOf<O> = O extends { requestBody?: { content: { "application/json": infer Body } } } ? Body : never

/** The options of a call to `M P`: its JSON body, when the operation takes one. */
export type RequestOptionsOf<P extends string, M extends ApiMethod> = [
  options?: RequestOptions<JsonBodyOf<Operation<P, M>> | ([JsonBodyOf<Operation<P, M>>] extends [never] ? {} : never)>
]
