import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import type { User } from "@talab/core"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import {
  ForbiddenResponse,
  PayloadTooLargeResponse,
  RateLimitedResponse,
  UnauthorizedResponse,
  UnsupportedMediaTypeResponse,
  ValidationErrorResponse
} from "./Envelope.js"

/*
 * The middlewares the contract's groups and endpoints declare: what each may answer and what it provides. Their
 * implementations are the server's (http-server's http/Authentication.ts, ApiRateLimit.ts, AdminOnly.ts and
 * BodyCheck.ts).
 *
 * Order (decisions.md section 11: 401, then 429, then 403, then the body, then path and payload): the framework
 * (@effect/platform 0.97, HttpApiBuilder's applyMiddleware) runs an endpoint's own middlewares before its
 * group's, and of those declared in one place the last declared first. So they are declared innermost first:
 *
 *   .middleware(BodyCheck).middleware(AdminOnly).middleware(ApiRateLimit).middleware(Authentication)
 *
 * and a check an endpoint must skip (the avatar's body check, the per-user budget on /auth/*) is one it does not
 * declare: all of them on the endpoints then, none on the group.
 */

/** The signed-in caller of a request and the session their token belongs to. */
export class CurrentUser extends Context.Tag("Http/CurrentUser")<
  CurrentUser,
  { readonly user: User; readonly sessionId: string }
>() {}

/** Checks the bearer access token and its session (401 otherwise) and provides the caller. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Http/Authentication", {
  failure: UnauthorizedResponse,
  provides: CurrentUser,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * Counts the call against the caller's per-minute API budget (429 past it). Runs after `Authentication` (so
 * is declared before it), whose caller it counts. The auth group does not declare it: logout is counted on the
 * auth limit per IP.
 */
export class ApiRateLimit extends HttpApiMiddleware.Tag<ApiRateLimit>()("Http/ApiRateLimit", {
  failure: RateLimitedResponse
}) {}

/**
 * 403 to anyone but an administrator, for `/admin/*`: runs after `ApiRateLimit` and before `BodyCheck`, so
 * it answers after 401 and 429 and (being middleware) before the body, path or query is decoded or anything is
 * looked up; a non-admin learns nothing about ids there (decisions.md section 11).
 */
export class AdminOnly extends HttpApiMiddleware.Tag<AdminOnly>()("Http/AdminOnly", {
  failure: ForbiddenResponse
}) {}

/**
 * The JSON body check (413 over 1 MiB, 415 for a body not declared JSON, 400 for one that does not parse or is
 * not an object), before the framework decodes the payload. Runs after the checks that outrank bad input (so
 * is declared first).
 */
export class BodyCheck extends HttpApiMiddleware.Tag<BodyCheck>()("Http/BodyCheck", {
  failure: Schema.Union(ValidationErrorResponse, PayloadTooLargeResponse, UnsupportedMediaTypeResponse)
}) {}
