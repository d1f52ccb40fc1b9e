import * as Schema from "effect/Schema"

/**
 * What an audit entry records, by a stable dotted name: `<target type>.<verb>`. A name once written is never
 * renamed (old entries keep it); a new kind of action gets a new name.
 */
export const AuditAction = Schema.Literal(
  "seller_profile.approve",
  "seller_profile.reject",
  "seller_profile.suspend",
  "seller_profile.reinstate",
  "report.resolve",
  "report.view",
  "user.admin_grant",
  "user.admin_revoke",
  "user.sessions_revoke",
  "user.delete",
  "database.restore",
  "database.retention"
).annotations({ description: "What was done, as a stable dotted name (`<target type>.<verb>`)." })
export type AuditAction = typeof AuditAction.Type

/** Who acted: an administrator through the API (their name as it was then), or an operator at a `talab` command. */
export const AuditActor = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("admin"),
    id: Schema.UUID,
    name: Schema.NullOr(Schema.String).annotations({ description: "The admin's name when they acted." })
  }),
  Schema.Struct({
    type: Schema.Literal("operator"),
    host: Schema.String.annotations({ description: "The machine the `talab` command ran on." })
  })
)
export type AuditActor = typeof AuditActor.Type

/** The kind of thing an action was done to. */
export const AuditTargetType = Schema.Literal("seller_profile", "report", "user")
export type AuditTargetType = typeof AuditTargetType.Type

/** What an action was done to; null for a command on the whole database (a restore, a retention run). */
export const AuditTarget = Schema.Struct({ type: AuditTargetType, id: Schema.UUID })
export type AuditTarget = typeof AuditTarget.Type

/** A value a field had before or after an action. */
export const AuditValue = Schema.Union(
  Schema.String,
  Schema.Number,
  Schema.Boolean,
  Schema.Null,
  Schema.Array(Schema.String)
)

/**
 * What an action changed, by field: the value before and after. A reason the admin gave is the field `reason`
 * (null before); a read changes nothing (`{}`).
 */
export const AuditChanges = Schema.Record({
  key: Schema.String,
  value: Schema.Struct({ before: AuditValue, after: AuditValue })
})
export type AuditChanges = typeof AuditChanges.Type

/** One entry of the audit trail: who did what to what, and what it changed. Never updated nor deleted. */
export const AuditEntry = Schema.Struct({
  id: Schema.UUID,
  actor: AuditActor,
  action: AuditAction,
  target: Schema.NullOr(AuditTarget),
  changes: AuditChanges,
  requestId: Schema.NullOr(Schema.String).annotations({
    description: "The X-Request-Id of the API request that did it (null for an operator command)."
  }),
  createdAt: Schema.DateFromSelf
})
export interface AuditEntry extends Schema.Schema.Type<typeof AuditEntry> {}

/** A change of one field, for {@link AuditChanges}. */
export const changed = <A extends typeof AuditValue.Type>(before: A, after: A) => ({ before, after })
