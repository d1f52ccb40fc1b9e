import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Report, ReportReason, ReportStatus, ResolveAction, snakeCaseKeys } from "@talab/core"
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
import { DealView, entityView, shownAs, UserView } from "../http/Views.js"

/** A report: every field of the resource; the admin's resolution notes are shown as `notes`. */
export const ReportView = Schema.Struct({
  ...entityView(Report.fields).fields,
  resolutionNotes: shownAs("notes", Report.fields.resolutionNotes)
})

const ReportUser = UserView.pick("id", "name", "phoneNumber")

/** A report as the admin reviews it: reporter, reported user and deal as objects. */
export const AdminReportItem = Schema.Struct({
  ...ReportView.pick("id").fields,
  reporter: ReportUser,
  ...snakeCaseKeys({ reportedUser: ReportUser }).fields,
  deal: Schema.NullOr(DealView.pick("id", "requestId", "status")),
  ...ReportView.pick("reason", "description", "status", "action", "resolutionNotes", "resolvedAt", "createdAt").fields
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
      .addSuccess(Ok(ReportView.pick("id", "status", "createdAt")), { status: 201 })
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
            ...ReportView.pick("id", "status").fields,
            action: ResolveAction,
            ...ReportView.pick("resolutionNotes").fields,
            ...snakeCaseKeys({ resolvedAt: Schema.Date }).fields
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
