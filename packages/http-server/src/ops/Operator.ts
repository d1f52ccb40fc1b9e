import { SqlClient } from "@effect/sql"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { recordOperatorAction } from "../audit/AuditTrail.js"
import { normalizeMobileNumber } from "../auth/Phone.js"
import { AccountErasure } from "../users/Erasure.js"

/** A `talab` command that cannot do what was asked; `message` is the one line printed for the operator. */
export class OperatorRefused extends Data.TaggedError("OperatorRefused")<{ readonly message: string }> {}

/** What a command changed, one line each, for the operator's terminal. */
type Report = ReadonlyArray<string>

const phoneOf = (input: string) => {
  const phone = normalizeMobileNumber(input)
  return phone === undefined
    ? Effect.fail(new OperatorRefused({ message: `${JSON.stringify(input)} is not a valid E.164 mobile number` }))
    : Effect.succeed(phone)
}

/** ADMIN_PHONE_NUMBERS as the server compares them: normalised, the unparseable ones kept as written. */
const normalisedList = (numbers: ReadonlyArray<string>) =>
  new Set(numbers.map((number) => normalizeMobileNumber(number) ?? number))

const userByPhone = (phone: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; is_admin: boolean }>`SELECT id, is_admin FROM users WHERE phone_number = ${phone}`.pipe(
      Effect.flatMap(([user]) =>
        user === undefined
          ? Effect.fail(new OperatorRefused({ message: `no user has signed in with ${phone}` }))
          : Effect.succeed(user)
      )
    )
  )

/** Admins from both sources: ADMIN_PHONE_NUMBERS (the environment) and `users.is_admin` (granted here). */
export const adminList = (envAdmins: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const granted = yield* sql<{ phone_number: string }>`
      SELECT phone_number FROM users WHERE is_admin ORDER BY phone_number`
    const fromEnv = normalisedList(envAdmins)
    const grantedPhones = new Set(granted.map((row) => row.phone_number))
    const lines: Array<string> = []
    for (const phone of [...new Set([...fromEnv, ...grantedPhones])].sort()) {
      const sources = [
        ...(fromEnv.has(phone) ? ["ADMIN_PHONE_NUMBERS"] : []),
        ...(grantedPhones.has(phone) ? ["granted"] : [])
      ]
      lines.push(`${phone}\t${sources.join(", ")}`)
    }
    return lines.length === 0 ? ["no admins"] : lines
  })

/** What an admin command reports, and whose user row it changed (the running servers are told). */
export interface AdminChange {
  readonly report: Report
  readonly changedUserId?: string
  /** The grant was revoked but the user stays an admin (ADMIN_PHONE_NUMBERS): the command fails with the report. */
  readonly refused?: boolean
}

/** Makes the user with `input` an admin (sets `users.is_admin`). */
export const adminGrant = (input: string, envAdmins: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const phone = yield* phoneOf(input)
    const user = yield* userByPhone(phone)
    if (user.is_admin) return { report: [`${phone} was already granted admin; nothing changed`] } as AdminChange
    yield* sql.withTransaction(
      Effect.zipRight(
        sql`UPDATE users SET is_admin = true WHERE id = ${user.id}`,
        recordOperatorAction({
          action: "user.admin_grant",
          target: { type: "user", id: user.id },
          changes: { is_admin: { before: false, after: true } }
        })
      )
    )
    const alsoEnv = normalisedList(envAdmins).has(phone) ? " (also listed in ADMIN_PHONE_NUMBERS)" : ""
    return { report: [`granted admin to ${phone}${alsoEnv}`], changedUserId: user.id } as AdminChange
  })

/** Clears `users.is_admin`; an admin by ADMIN_PHONE_NUMBERS stays one until removed from that variable. */
export const adminRevoke = (input: string, envAdmins: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const phone = yield* phoneOf(input)
    const inEnv = normalisedList(envAdmins).has(phone)
    const user = yield* userByPhone(phone).pipe(
      Effect.catchTag("OperatorRefused", (refused) =>
        inEnv ? Effect.succeed({ id: "", is_admin: false }) : Effect.fail(refused)
      )
    )
    if (!user.is_admin) {
      if (inEnv) return yield* new OperatorRefused({ message: staysAdmin(phone) })
      return { report: [`${phone} was not an admin; nothing changed`] } as AdminChange
    }
    yield* sql.withTransaction(
      Effect.zipRight(
        sql`UPDATE users SET is_admin = false WHERE id = ${user.id}`,
        recordOperatorAction({
          action: "user.admin_revoke",
          target: { type: "user", id: user.id },
          changes: { is_admin: { before: true, after: false } }
        })
      )
    )
    const report = [`revoked the admin grant of ${phone}`]
    return {
      report: inEnv ? [...report, staysAdmin(phone)] : report,
      changedUserId: user.id,
      refused: inEnv
    } as AdminChange
  })

const staysAdmin = (phone: string) =>
  `${phone} is in ADMIN_PHONE_NUMBERS and stays an admin: remove it there and restart the server`

/**
 * Ends every live session of the user with `input` and removes the push tokens they registered: their tokens
 * answer 401 from the next request. Closing their open sockets is the caller's part (`runCommand`).
 */
export const sessionsRevoke = (input: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const phone = yield* phoneOf(input)
    const user = yield* userByPhone(phone)
    const revoked = yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql<{ id: string }>`
          UPDATE sessions SET revoked_at = now()
          WHERE user_id = ${user.id} AND revoked_at IS NULL AND expires_at > now()
          RETURNING id`
        if (rows.length > 0) {
          yield* sql`DELETE FROM device_tokens WHERE session_id IN ${sql.in(rows.map((r) => r.id))}`
          yield* recordOperatorAction({
            action: "user.sessions_revoke",
            target: { type: "user", id: user.id },
            changes: { revoked_session_ids: { before: [], after: rows.map((r) => r.id) } }
          })
        }
        return rows
      })
    )
    return {
      sessionIds: revoked.map((row) => row.id),
      report: [
        revoked.length === 0
          ? `${phone} had no live session; nothing changed`
          : `revoked ${revoked.length} session${revoked.length === 1 ? "" : "s"} of ${phone}`
      ] as Report
    }
  })

/**
 * Deletes the account of the user with `input`, as `DELETE /users/me` does (without a code: the operator is
 * trusted): refused while one of their deals is still accepted. Answers the sessions it ended, whose sockets
 * the caller has closed (`runCommand`), after the files are removed.
 */
export const usersDelete = (input: string, envAdmins: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const phone = yield* phoneOf(input)
    const erasure = yield* AccountErasure
    const found = yield* erasure.findByPhone(phone)
    if (Option.isNone(found)) return yield* new OperatorRefused({ message: `no user has signed in with ${phone}` })
    const user = found.value
    const audit = recordOperatorAction({
      action: "user.delete",
      target: { type: "user", id: user.id },
      changes: { deleted: { before: false, after: true } }
    }).pipe(Effect.orDie)
    const deleted = yield* erasure.deleteInTransaction(user, audit).pipe(
      Effect.catchTag("OpenDealsExist", () =>
        Effect.fail(
          new OperatorRefused({
            message: `${phone} has a deal still accepted (neither completed nor cancelled); nothing changed`
          })
        )
      )
    )
    const report: Array<string> = [
      `deleted the account of ${phone} (user ${user.id}); ended ${deleted.endedSessionIds.length} session${
        deleted.endedSessionIds.length === 1 ? "" : "s"
      }; the number can sign up again as a new user`
    ]
    if (normalisedList(envAdmins).has(phone))
      report.push(`${phone} is in ADMIN_PHONE_NUMBERS: signing up again makes it an admin; remove it there`)
    return { report: report as Report, userId: user.id, deleted }
  })
