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
 * The middlewares the contract's groups declare: what each may answer and what it provides. Their
 * implementations are the server's (http-server's http/Authentication.ts and http/BodyCheck.ts).
 */

/** The signed-in caller of a request and the session their token belongs to. */
export class CurrentUser extends Context.Tag("Http/CurrentUser")<
  CurrentUser,
  { readonly user: User; readonly sessionId: string }
>() {}

/**
 * Checks the bearer access token and its session, counts the call against the user's API budget,
 * checks the JSON body, and provides the caller. Logout is counted on the auth limit per IP instead.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Http/Authentication", {
  failure: Schema.Union(
    UnauthorizedResponse,
    RateLimitedResponse,
    ValidationErrorResponse,
    PayloadTooLargeResponse,
    UnsupportedMediaTypeResponse
  ),
  provides: CurrentUser,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * Authentication for `/admin/*`: as `Authentication`, then 403 to anyone but an administrator before the body
 * is looked at, and (being middleware) before the path or body is decoded or anything is looked up, so a
 * non-admin learns nothing about ids there (decisions.md section 11: only 401 and 429 come first).
 */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("Http/AdminAuthentication", {
  failure: Schema.Union(
    UnauthorizedResponse,
    RateLimitedResponse,
    ForbiddenResponse,
    ValidationErrorResponse,
    PayloadTooLargeResponse,
    UnsupportedMediaTypeResponse
  ),
  provides: CurrentUser,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The body check for endpoints that need no token. */
export class BodyCheck extends HttpApiMiddleware.Tag<BodyCheck>()("Http/BodyCheck", {
  failure: Schema.Union(ValidationErrorResponse, PayloadTooLargeResponse, UnsupportedMediaTypeResponse)
}) {}
