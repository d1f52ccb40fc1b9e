import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { SellerAlertsApi } from "./alerts/Api.js"
import { AdminAuditApi } from "./audit/Api.js"
import { AuthApi } from "./auth/Api.js"
import { ChatApi } from "./chat/Api.js"
import { DealsApi } from "./deals/Api.js"
import {
  InternalErrorResponse,
  RateLimitedResponse,
  ServiceUnavailableResponse,
  ValidationErrorResponse
} from "./http/Envelope.js"
import { ImagesApi } from "./images/Api.js"
import { OffersApi } from "./offers/Api.js"
import { RatingsApi } from "./ratings/Api.js"
import { AdminReportsApi, ReportsApi } from "./reports/Api.js"
import { RequestsApi } from "./requests/Api.js"
import { AdminSellerProfilesApi, SellerProfilesApi } from "./sellers/Api.js"
import { AdminUsersApi } from "./users/AdminApi.js"
import { UsersApi } from "./users/Api.js"

/** The whole REST contract, under /api/v1. Importable without the server. */
export class Api extends HttpApi.make("talab")
  .add(AuthApi)
  .add(UsersApi)
  .add(SellerProfilesApi)
  .add(AdminSellerProfilesApi)
  .add(SellerAlertsApi)
  .add(RequestsApi)
  .add(OffersApi)
  .add(DealsApi)
  .add(RatingsApi)
  .add(ReportsApi)
  .add(AdminReportsApi)
  .add(AdminUsersApi)
  .add(AdminAuditApi)
  .add(ChatApi)
  .add(ImagesApi)
  .addError(ValidationErrorResponse)
  .addError(RateLimitedResponse)
  .addError(InternalErrorResponse)
  .addError(ServiceUnavailableResponse)
  .prefix("/api/v1")
  .annotateContext(
    OpenApi.annotations({
      title: "Talab API",
      version: "1.0.0",
      description:
        "Buy-request marketplace API. Every response is an envelope: {success, data, message?} or {success: false, error: {code, message, details}}. This document, the AsyncAPI document (`/api/v1/asyncapi.json`) and `/docs` are public reads, counted per client network with `GET /seller-profiles/{id}` (`RATE_LIMIT_PUBLIC_PER_MINUTE`, 120 a minute): past it 429 `RATE_LIMITED` with `Retry-After`."
    })
  ) {}
