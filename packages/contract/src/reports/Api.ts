import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { DealStatus, ReportReason, ReportStatus, ResolveAction } from "@talab/core"
import * as Schema from "effect/Schema"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok
} from "../http/Envelope.js"
import { FreeText, OneOf, Optional, PageParams, Pagination, Payload, UuidField } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { AdminOnly, ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"

const Nullable = Schema.NullOr(Schema.String)
const ReportUser = Schema.Struct({ id: Schema.UUID, name: Nullable, phone_number: Schema.String })

/** A report as the admin reviews it: reporter, reported user and deal as objects. */
export const AdminReportItem = Schema.Struct({
  id: Schema.UUID,
  reporter: ReportUser,
  reported_user: ReportUser,
  deal: Schema.NullOr(Schema.Struct({ id: Schema.UUID, request_id: Schema.UUID, status: DealStatus })),
  reason: ReportReason,
  description: Nullable,
  status: ReportStatus,
  action: Schema.NullOr(ResolveAction),
  notes: Nullable,
  resolved_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date
})

/** Reporting a user. */
export class ReportsApi extends HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.post("file", "/reports")
      .setPayload(
        Payload({
          reported_user_id: UuidField,
          deal_id: Optional(UuidField),
          reason: OneOf(...ReportReason.literals),
          description: Optional(FreeText(0, 2000))
        })
      )
      .addSuccess(Ok(Schema.Struct({ id: Schema.UUID, status: ReportStatus, created_at: Schema.Date })), {
        status: 201
      })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}

/** The admin's handling of reports. */
export class AdminReportsApi extends HttpApiGroup.make("adminReports")
  .add(
    HttpApiEndpoint.get("list", "/admin/reports")
      .setUrlParams(Schema.Struct({ status: Schema.optional(OneOf(...ReportStatus.literals)), ...PageParams }))
      .addSuccess(Ok(Schema.Struct({ reports: Schema.Array(AdminReportItem), pagination: Pagination })))
      .addError(ForbiddenResponse)
  )
  .add(
    HttpApiEndpoint.put("resolve", "/admin/reports/:id/resolve")
      .setPath(IdPath)
      .setPayload(Payload({ action: OneOf(...ResolveAction.literals), notes: Optional(FreeText(0, 2000)) }))
      .addSuccess(
        Ok(
          Schema.Struct({
            id: Schema.UUID,
            status: ReportStatus,
            action: ResolveAction,
            notes: Nullable,
            resolved_at: Schema.Date
          })
        )
      )
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
