import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  Message,
  Report,
  ReportInput,
  ReportStatus,
  ResolveAction,
  ResolveInput,
  snakeCaseKeys,
  User
} from "@talab/core"
import * as Schema from "effect/Schema"
import { adminOnly, ErrorCases, RequestExample } from "../docs/Annotations.js"
import {
  BusinessRuleResponse,
  ForbiddenResponse,
  IdempotencyKeyInUseResponse,
  IdempotencyKeyReusedResponse,
  NotFoundResponse,
  Ok,
  OkWithMessage
} from "../http/Envelope.js"
import { OneOf, PageParams, Pagination, PayloadOf } from "../http/Fields.js"
import { IdPath } from "../http/Paths.js"
import { AdminOnly, ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { DealView, DeletedFlag, entityView, SellerProfileView, shownAs, UserView } from "../http/Views.js"

/** A report: every field of the resource; the admin's resolution notes are shown as `notes`. */
export const ReportView = Schema.Struct({
  ...entityView(Report.fields).fields,
  resolutionNotes: shownAs("notes", Report.fields.resolutionNotes)
})

const ReportUser = Schema.Struct({
  ...UserView.pick("id", "name").fields,
  phoneNumber: shownAs("phone_number", Schema.NullOr(User.fields.phoneNumber)),
  ...DeletedFlag.fields
})

/** A report as the admin reviews it: reporter, reported user and deal as objects. */
export const AdminReportItem = Schema.Struct({
  ...ReportView.pick("id").fields,
  reporter: ReportUser,
  ...snakeCaseKeys({ reportedUser: ReportUser }).fields,
  deal: Schema.NullOr(DealView.pick("id", "requestId", "status")),
  ...ReportView.pick("reason", "description", "status", "action", "resolutionNotes", "resolvedAt", "createdAt").fields
})

/** How many messages of a report's conversation the admin's report view shows at most (the newest). */
export const ADMIN_REPORT_MESSAGES_MAX = 1000

/** A message of the deal's conversation as the admin reads it: unmasked, as it was sent. */
export const AdminReportMessage = entityView(Message.fields).pick(
  "id",
  "seq",
  "senderId",
  "kind",
  "messageText",
  "createdAt"
)

/**
 * One report with its context: the reported user with their seller profile and how many reports they have had,
 * the whole deal, and the messages of the deal's conversation.
 */
export const AdminReportDetail = Schema.Struct({
  ...ReportView.pick("id").fields,
  reporter: ReportUser,
  ...snakeCaseKeys({
    reportedUser: Schema.Struct({
      ...ReportUser.fields,
      ...snakeCaseKeys({
        sellerProfile: Schema.NullOr(SellerProfileView),
        reportsReceived: Schema.Int.annotations({
          description: "How many reports were filed against this user, this one included, in any state."
        })
      }).fields
    })
  }).fields,
  deal: Schema.NullOr(DealView),
  ...ReportView.pick("reason", "description", "status", "action", "resolutionNotes", "resolvedAt", "createdAt").fields,
  messages: Schema.Array(AdminReportMessage).annotations({
    description: `The newest ${ADMIN_REPORT_MESSAGES_MAX} messages of the deal's conversation at most, oldest first, unmasked (empty when the report names no deal).`
  }),
  ...snakeCaseKeys({
    hasMoreMessages: Schema.Boolean.annotations({
      description: `True when the conversation has older messages than the ${ADMIN_REPORT_MESSAGES_MAX} shown.`
    })
  }).fields
})

/** Reporting a user. */
export class ReportsApi extends HttpApiGroup.make("reports")
  .annotate(OpenApi.Title, "Reports")
  .annotate(OpenApi.Description, "Any user can report another for a fake offer, a no-show, rudeness or a scam.")
  .add(
    HttpApiEndpoint.post("file", "/reports")
      .setPayload(PayloadOf(ReportInput))
      .addSuccess(Ok(ReportView.pick("id", "status", "createdAt")), { status: 201 })
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(BusinessRuleResponse)
      .addError(IdempotencyKeyInUseResponse)
      .addError(IdempotencyKeyReusedResponse)
      .annotate(OpenApi.Summary, "Report a user")
      .annotate(
        OpenApi.Description,
        "Any signed-in user, about someone else. With `deal_id`, the caller and the reported user must both be parties of that deal. Creates a `pending` report for the admins; one pending report per reporter, reported user and deal."
      )
      .annotate(ErrorCases, {
        VALIDATION_ERROR: "a field is invalid, or the reported user is not a party of the deal given",
        NOT_FOUND: "the reported user or the deal does not exist",
        FORBIDDEN: "the caller is not a party of the deal given",
        CANNOT_REPORT_SELF: "the caller reported themself",
        REPORT_ALREADY_PENDING:
          "the caller already has a pending report against this user about the same deal (or, both without `deal_id`, about none); allowed again once an admin resolves it"
      })
      .annotate(RequestExample, {
        reported_user_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
        reason: "no_show",
        description: "Did not come to the meeting point."
      })
  )
  .middleware(BodyCheck)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}

/** The admin's handling of reports. */
export class AdminReportsApi extends HttpApiGroup.make("adminReports")
  .annotate(OpenApi.Title, "Admin: reports")
  .annotate(
    OpenApi.Description,
    "Admins review reports: dismiss, warn or suspend the reported seller. Every operation answers 403 to a non-admin before any other check."
  )
  .add(
    HttpApiEndpoint.get("list", "/admin/reports")
      .setUrlParams(Schema.Struct({ status: Schema.optional(OneOf(...ReportStatus.literals)), ...PageParams }))
      .addSuccess(Ok(Schema.Struct({ reports: Schema.Array(AdminReportItem), pagination: Pagination })))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "List reports")
      .annotate(
        OpenApi.Description,
        `${adminOnly} Reports newest first, in every state unless \`status\` filters, a page at a time.`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/admin/reports/:id")
      .setPath(IdPath)
      .addSuccess(Ok(AdminReportDetail))
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "Get a report with its context")
      .annotate(
        OpenApi.Description,
        `${adminOnly} The report with its reporter, the reported user (their seller profile and how many reports they have had), the deal if it names one, and the messages of that deal's conversation (the newest 1,000, oldest first, unmasked; \`has_more_messages\` says whether there are older ones). Reading a conversation is private: each call is recorded in the audit log (\`report.view\`).`
      )
      .annotate(ErrorCases, { NOT_FOUND: "no report has this id" })
  )
  .add(
    HttpApiEndpoint.put("resolve", "/admin/reports/:id/resolve")
      .setPath(IdPath)
      .setPayload(PayloadOf(ResolveInput))
      .addSuccess(
        OkWithMessage(
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
      .annotate(OpenApi.Summary, "Resolve a report")
      .annotate(
        OpenApi.Description,
        `${adminOnly} \`dismiss\` makes the report \`dismissed\`; \`warn\` and \`suspend_seller\` make it \`resolved\`, and \`suspend_seller\` also suspends the reported user's seller profile (its pending offers are rejected). Recorded in the audit log (\`report.resolve\`).`
      )
      .annotate(ErrorCases, {
        NOT_FOUND: "no report has this id",
        REPORT_NOT_PENDING: "the report was resolved or dismissed already"
      })
      .annotate(RequestExample, { action: "warn", notes: "Warned by phone" })
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
