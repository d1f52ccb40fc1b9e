import { SqlClient } from "@effect/sql"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { runMigrations } from "../db/Migrations.js"
import { backupEmbedded } from "./Backup.js"
import {
  type AdminChange,
  adminGrant,
  adminList,
  adminRevoke,
  OperatorRefused,
  sessionsRevoke,
  usersDelete
} from "./Operator.js"
import { runRetention } from "./Retention.js"

/** What a `talab` command printed and how it ended: 0 done, 1 refused, 2 not a command. */
export interface Outcome {
  readonly code: 0 | 1 | 2
  readonly stdout: ReadonlyArray<string>
  readonly stderr: ReadonlyArray<string>
}

export const USAGE = [
  "usage: talab <command>",
  "  migrate                    apply the database migrations not yet applied",
  "  backup <file>              copy the embedded database to <file> (while the server runs, too)",
  "  restore <file>             replace the embedded database with <file> (server stopped)",
  "  admin list                 admins from ADMIN_PHONE_NUMBERS and from grants",
  "  admin grant <phone>        make the user with <phone> an admin",
  "  admin revoke <phone>       take back a grant",
  "  sessions revoke <phone>    sign the user with <phone> out everywhere",
  "  users delete <phone>       delete the account of the user with <phone> (refused while a deal is accepted)",
  "  retention                  run the retention job once (RETENTION_DAYS)"
]

/** The commands, by their words, as `[name, arity]`; restore is handled before a database is opened. */
const commands: ReadonlyArray<readonly [ReadonlyArray<string>, number]> = [
  [["migrate"], 0],
  [["backup"], 1],
  [["restore"], 1],
  [["admin", "list"], 0],
  [["admin", "grant"], 1],
  [["admin", "revoke"], 1],
  [["sessions", "revoke"], 1],
  [["users", "delete"], 1],
  [["retention"], 0]
]

/** The command `args` name, or a usage error. */
export const parseCommand = (
  args: ReadonlyArray<string>
): { readonly name: string; readonly argument: string | undefined } | { readonly usage: string } => {
  for (const [words, arity] of commands) {
    if (words.every((word, index) => args[index] === word)) {
      const rest = args.slice(words.length)
      if (rest.length !== arity)
        return { usage: `talab ${words.join(" ")} takes ${arity === 0 ? "no argument" : "one argument"}` }
      return { name: words.join(" "), argument: rest[0] }
    }
  }
  return { usage: args.length === 0 ? "no command given" : `unknown command: ${args.join(" ")}` }
}

export interface CommandEnvironment {
  readonly adminPhoneNumbers: ReadonlyArray<string>
  readonly retentionDays: number
  /**
   * Tells the running servers that sessions ended, so they close those sessions' sockets with 4401: the
   * server's own hub (a command handed to it) or the Redis channel the instances share (REDIS_URL).
   */
  readonly endSessions?: (sessionIds: ReadonlyArray<string>) => Effect.Effect<void>
  /** Tells the running servers that users' rows changed, so their session caches read them again. */
  readonly usersChanged?: (userIds: ReadonlyArray<string>) => Effect.Effect<void>
}

/** Without REDIS_URL a command run beside a server on PostgreSQL cannot reach it: its cache catches up alone. */
const unreachedServers = "a server running on this database sees the change within 30 s: no REDIS_URL to reach it"

/** Applies an admin change, then tells the running servers whose row changed. */
const changeAdmin = (
  change: Effect.Effect<AdminChange, OperatorRefused | unknown, SqlClient.SqlClient>,
  env: CommandEnvironment
) =>
  Effect.gen(function* () {
    const { report, changedUserId, refused } = yield* change
    let lines = report
    if (changedUserId !== undefined) {
      if (env.usersChanged === undefined) lines = [...lines, unreachedServers]
      else yield* env.usersChanged([changedUserId])
    }
    if (refused) return yield* new OperatorRefused({ message: lines.join("\n") })
    return lines
  })

/** Revokes the sessions, then has their sockets closed where the servers can be reached. */
const revokeSessions = (input: string, env: CommandEnvironment) =>
  Effect.gen(function* () {
    const { report, sessionIds } = yield* sessionsRevoke(input)
    if (sessionIds.length === 0) return report
    if (env.endSessions === undefined) {
      return [
        ...report,
        "open WebSocket connections of those sessions stay open until they disconnect: no REDIS_URL to reach the servers",
        unreachedServers
      ]
    }
    yield* env.endSessions(sessionIds)
    return report
  })

/**
 * Deletes the account; its sockets close and the running servers' caches drop it where they can be reached
 * (the AccountErasure in context says it through the same channel as `sessions revoke`).
 */
const deleteUser = (input: string, env: CommandEnvironment) =>
  Effect.gen(function* () {
    const { report, deleted, userId } = yield* usersDelete(input, env.adminPhoneNumbers)
    yield* Effect.annotateLogs(Effect.logInfo("talab users delete: account deleted"), { user_id: userId })
    if (env.endSessions === undefined && deleted.endedSessionIds.length > 0)
      return [
        ...report,
        "open WebSocket connections of those sessions stay open until they disconnect: no REDIS_URL to reach the servers",
        unreachedServers
      ]
    return report
  })

/** Runs one parsed command on the database in context (the CLI's own, or the running server's). */
export const runCommand = (name: string, argument: string | undefined, env: CommandEnvironment) => {
  const run: Effect.Effect<ReadonlyArray<string>, OperatorRefused | unknown, SqlClient.SqlClient | any> = (() => {
    switch (name) {
      case "migrate":
        return Effect.map(runMigrations, (applied) =>
          applied.length === 0
            ? ["migrations: the schema is up to date"]
            : applied.map(([id, migration]) => `migrated ${String(id).padStart(4, "0")}_${migration}`)
        )
      case "backup":
        return backupEmbedded(argument!)
      case "admin list":
        return adminList(env.adminPhoneNumbers)
      case "admin grant":
        return changeAdmin(adminGrant(argument!, env.adminPhoneNumbers), env)
      case "admin revoke":
        return changeAdmin(adminRevoke(argument!, env.adminPhoneNumbers), env)
      case "sessions revoke":
        return revokeSessions(argument!, env)
      case "users delete":
        return deleteUser(argument!, env)
      case "retention":
        return Effect.map(runRetention(env.retentionDays, { byOperator: true }), (removed) =>
          removed === undefined
            ? ["retention: another instance is running it; nothing done"]
            : [
                `retention: removed ${removed.sessions} sessions, ${removed.otpChallenges} OTP challenges, ` +
                  `${removed.notifications} notifications, ${removed.outboxEvents} outbox events, ` +
                  `${removed.idempotencyKeys} idempotency keys`
              ]
        )
      default:
        return Effect.fail(new OperatorRefused({ message: `unknown command: ${name}` }))
    }
  })()
  return run.pipe(
    Effect.map((stdout): Outcome => ({ code: 0, stdout, stderr: [] })),
    Effect.catchAllCause((cause) => {
      const failure = Cause.squash(cause)
      const message =
        failure instanceof OperatorRefused
          ? failure.message
          : `talab ${name} failed: ${String((failure as Error)?.message ?? failure)}`
      return Effect.succeed<Outcome>({ code: 1, stdout: [], stderr: message.split("\n") })
    })
  ) as Effect.Effect<Outcome, never, SqlClient.SqlClient>
}
