import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Api, INVALID, type PathProblem, problemsOf, REQUIRED, UNKNOWN_ID } from "@talab/contract"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { requestLanguage } from "../http/Localize.js"
import { validationDetails } from "../http/ValidationDetails.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/** An endpoint as `HttpApi.reflect` lists it (its decoded types unknown here, which only needs its failures). */
type Endpoint = HttpApiEndpoint.HttpApiEndpoint<string, HttpMethod.HttpMethod>
type InputSchema = Schema.Schema<never, unknown>

/** Decoding the endpoint's inputs again found nothing wrong: the framework's failure came from elsewhere. */
class NoInputFailed extends Data.TaggedError("NoInputFailed") {}

/** The endpoint's payload as the framework decodes it: the query of a method without a body, else the JSON body. */
const payloadInput = (request: HttpServerRequest.HttpServerRequest, query: unknown) =>
  HttpMethod.hasBody(request.method) ? request.json : Effect.succeed(query)

/** A multipart payload is read as a stream by its handler, never decoded by the framework. */
const isDecodedPayload = (schema: InputSchema) =>
  HttpApiSchema.getMultipartStream(schema.ast) === undefined && HttpApiSchema.getMultipart(schema.ast) === undefined

/**
 * The issue of the first of the endpoint's inputs that fails its schema, in the framework's order (path,
 * payload, headers, query), or undefined when they all decode.
 */
const firstFailedInput = (endpoint: Endpoint) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { params } = yield* HttpRouter.RouteContext
    const query = yield* HttpServerRequest.ParsedSearchParams
    const inputs: ReadonlyArray<readonly [Option.Option<InputSchema>, Effect.Effect<unknown, unknown>]> = [
      [endpoint.pathSchema, Effect.succeed(params)],
      [Option.filter(endpoint.payloadSchema, isDecodedPayload), payloadInput(request, query)],
      [endpoint.headersSchema, Effect.succeed(request.headers)],
      [endpoint.urlParamsSchema, Effect.succeed(query)]
    ]
    for (const [schema, input] of inputs) {
      if (Option.isNone(schema)) continue
      const decoded = yield* Effect.either(Effect.flatMap(input, Schema.decodeUnknown(schema.value)))
      if (Either.isLeft(decoded)) return ParseResult.isParseError(decoded.left) ? decoded.left.issue : undefined
    }
    return undefined
  })

/** The envelope of a decoding's problems: a path id that is not one names nothing (404), else 400 with details. */
const answerProblems = (problems: ReadonlyArray<PathProblem>) =>
  problems.some((problem) => problem.key === UNKNOWN_ID)
    ? errorEnvelopeResponse("NOT_FOUND", 404)
    : Effect.flatMap(requestLanguage, (language) =>
        errorEnvelopeResponse("VALIDATION_ERROR", 400, validationDetails(problems, language))
      )

/** A route per endpoint that decodes the request's inputs again, matched as the framework matches them. */
const redecodeRoute = (endpoint: Endpoint) =>
  HttpRouter.makeRoute(
    endpoint.method,
    endpoint.path,
    Effect.flatMap(firstFailedInput(endpoint), (issue) =>
      issue === undefined ? Effect.fail(new NoInputFailed()) : answerProblems(problemsOf(issue))
    )
  )

const endpointsOf = () => {
  const endpoints: Array<Endpoint> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => endpoints.push(endpoint)
  })
  return endpoints
}

const decodeErrorOf = (cause: Cause.Cause<unknown>) =>
  Option.filter(Cause.failureOption(cause), (error) => error instanceof HttpApiDecodeError)

/** Anything else that failed as a ParseError (a handler's own decoding): its fields, without problem keys. */
const answerFormattedIssues = (error: HttpApiDecodeError) =>
  answerProblems(
    error.issues.map((issue) => ({ path: issue.path, key: issue._tag === "Missing" ? REQUIRED : INVALID }))
  )

/**
 * A request whose path, body or query does not match its endpoint answers the envelope: 404 NOT_FOUND when a
 * path id is not a UUID (it names nothing; the contract's `IdPath`), else 400 VALIDATION_ERROR with each field's
 * problems in the request's language. The framework hands over only formatted messages (`HttpApiDecodeError`),
 * so on this error path alone the request's inputs are decoded again with the endpoint's own schemas, and the
 * problems are read from the resulting issue (`problemsOf`). Outside the idempotency middleware, which keeps
 * neither answer.
 */
export const DecodeFailureLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const redecode = yield* HttpRouter.toHttpApp(HttpRouter.fromIterable(endpointsOf().map(redecodeRoute)))
    return (app) =>
      Effect.catchAllCause(app, (cause) =>
        Option.match(decodeErrorOf(cause), {
          onNone: () => Effect.failCause(cause),
          onSome: (error) => Effect.catchAll(redecode, () => answerFormattedIssues(error))
        })
      )
  })
)
