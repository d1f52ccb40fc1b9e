import { HttpApi, OpenApi } from "@effect/platform"
import { AuthApi } from "./auth/Api.js"
import { InternalErrorResponse, RateLimitedResponse, ValidationErrorResponse } from "./http/Envelope.js"
import { UsersApi } from "./users/Api.js"

/** The whole REST contract, under /api/v1. Importable without the server. */
export class Api extends HttpApi.make("talab")
  .add(AuthApi)
  .add(UsersApi)
  .addError(ValidationErrorResponse)
  .addError(RateLimitedResponse)
  .addError(InternalErrorResponse)
  .prefix("/api/v1")
  .annotateContext(
    OpenApi.annotations({
      title: "Talab API",
      version: "1.0.0",
      description: "Buy-request marketplace API. Every response is an envelope: {success, data, message?} or {success: false, error: {code, message, details}}."
    })
  ) {}
