import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { AuditAction, AuditEntry, DateTimeField, UuidField } from "@talab/core"
import * as Schema from "effect/Schema"
import { adminOnly } from "../docs/Annotations.js"
import { ForbiddenResponse, Ok } from "../http/Envelope.js"
import { OneOf, PageParams, Pagination } from "../http/Fields.js"
import { AdminOnly, ApiRateLimit, Authentication, BodyCheck } from "../http/Security.js"
import { entityView } from "../http/Views.js"

/** An audit entry as the API shows it. */
export const AuditEntryView = entityView(AuditEntry.fields)

/** The filters of the audit log, each optional; together they all apply. */
export const AuditLogParams = Schema.Struct({
  action: Schema.optional(OneOf(...AuditAction.literals)),
  actor_id: Schema.optional(UuidField),
  target_id: Schema.optional(UuidField),
  from: Schema.optional(DateTimeField),
  to: Schema.optional(DateTimeField),
  ...PageParams
})

/** The admin's read of the audit trail. */
export class AdminAuditApi extends HttpApiGroup.make("adminAudit")
  .annotate(OpenApi.Title, "Admin: audit log")
  .annotate(
    OpenApi.Description,
    "What admins did through the API and operators did with `talab` commands, for good: one entry per action, written in the transaction of the change (a refused action leaves none); the database refuses to update or delete one. Every operation answers 403 to a non-admin before any other check."
  )
  .add(
    HttpApiEndpoint.get("list", "/admin/audit-log")
      .setUrlParams(AuditLogParams)
      .addSuccess(Ok(Schema.Struct({ entries: Schema.Array(AuditEntryView), pagination: Pagination })))
      .addError(ForbiddenResponse)
      .annotate(OpenApi.Summary, "List the audit log")
      .annotate(
        OpenApi.Description,
        `${adminOnly} Entries newest first, a page at a time. Filters, all optional and combined: \`action\` (one of the actions), \`actor_id\` (the admin's user id), \`target_id\` (the id of the profile, report or user acted on), \`from\` and \`to\` (ISO 8601 date-times with an offset; \`from\` inclusive, \`to\` exclusive). Actions: \`seller_profile.approve\`, \`seller_profile.reject\`, \`seller_profile.suspend\`, \`seller_profile.reinstate\`, \`report.resolve\` (\`changes.action\` says which; a \`suspend_seller\` also lists the profile's status and the offers it rejected), \`report.view\` (an admin read a report's conversation), and the operator's \`user.admin_grant\`, \`user.admin_revoke\`, \`user.sessions_revoke\`, \`user.delete\`, \`database.restore\` and \`database.retention\`. An entry's actor is kept as it was when they acted, even once their account is deleted; its target is an id, which \`GET /admin/users/{id}\` shows as \`deleted\` when that account was deleted.`
      )
  )
  .middleware(BodyCheck)
  .middleware(AdminOnly)
  .middleware(ApiRateLimit)
  .middleware(Authentication) {}
