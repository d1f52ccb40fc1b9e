import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SessionEvents } from "../src/auth/SessionEvents.js"
import { AppConfig } from "../src/config/AppConfig.js"
import { DatabaseOptions } from "../src/db/Database.js"
import { MigratedDatabaseLayer } from "../src/db/Migrations.js"
import { runCli } from "../src/ops/Cli.js"
import { ControlChannelLive, controlFile } from "../src/ops/Control.js"
import { initializedDataDir, migratedDataDir } from "./support/migrated-databases.js"

/*
 * Every `talab` command and its refusals, in this process, on an embedded database in a temporary DATA_DIR
 * (the commands run the same SQL on PostgreSQL): a copy of the run's unmigrated one where the test is about what
 * the migrations do to it, else a copy of the run's migrated one (initdb and the migrations cost seconds of CPU
 * each time). The CLI opens the data directory itself when no server holds it, and hands the command to the
 * server when one does.
 */
const directories: Array<string> = []
const freshDataDir = () => {
  const directory = mkdtempSync(join(tmpdir(), "talab-cli-"))
  directories.push(directory)
  return directory
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const ENV_ADMIN = "+966500000001"
const talab = (dataDir: string, ...args: Array<string>) =>
  Effect.runPromise(runCli(args, { DATA_DIR: dataDir, ADMIN_PHONE_NUMBERS: ENV_ADMIN }))

/** Runs SQL on the embedded database in `dataDir` (opened, migrated, closed). */
const onDatabase = <A>(dataDir: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, use).pipe(
      Effect.provide(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir }))),
      Effect.orDie
    )
  )

/** The audit log of the embedded database in `dataDir`, oldest first, as the commands wrote it. */
const auditOf = (dataDir: string) =>
  onDatabase(
    dataDir,
    (sql) => sql<{
      action: string
      actor_type: string
      actor_host: string | null
      actor_id: string | null
      target_type: string | null
      target_id: string | null
      changes: Record<string, { before: unknown; after: unknown }>
      request_id: string | null
    }>`SELECT action, actor_type, actor_host, actor_id, target_type, target_id, changes, request_id
       FROM audit_log ORDER BY created_at, id`
  )

const aUser = (sql: SqlClient.SqlClient, phone: string) =>
  Effect.gen(function* () {
    const id = randomUUID()
    yield* sql`INSERT INTO users (id, phone_number) VALUES (${id}, ${phone})`
    return id
  })

describe("talab: usage", () => {
  it.each([[[]], [["frobnicate"]], [["admin"]], [["admin", "grant"]], [["sessions", "revoke"]], [["migrate", "now"]]])(
    "%j exits 2 with the usage",
    async (args) => {
      const outcome = await talab(freshDataDir(), ...args)
      expect(outcome.code).toBe(2)
      expect(outcome.stderr.join("\n")).toContain("usage: talab <command>")
    }
  )

  it("refuses a DATABASE_URL it cannot use, and restore/backup on PostgreSQL point to pg_dump", async () => {
    const bad = await Effect.runPromise(runCli(["migrate"], { DATABASE_URL: "mysql://x" }))
    expect(bad).toMatchObject({ code: 1 })
    expect(bad.stderr[0]).toContain("DATABASE_URL")
    const pg = { DATABASE_URL: process.env.TALAB_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" }
    const restore = await Effect.runPromise(runCli(["restore", "x.tar.gz"], pg))
    expect(restore.code).toBe(1)
    expect(restore.stderr[0]).toContain("pg_restore")
    const backup = await Effect.runPromise(runCli(["backup", "x.tar.gz"], pg))
    expect(backup.code).toBe(1)
    expect(backup.stderr[0]).toContain("pg_dump")
  })

  it("reads ADMIN_PHONE_NUMBERS and RETENTION_DAYS as the server does, refusing what the server refuses", async () => {
    const dataDir = freshDataDir()
    const badAdmin = await Effect.runPromise(
      runCli(["admin", "list"], { DATA_DIR: dataDir, ADMIN_PHONE_NUMBERS: "+966500000001,0501234567" })
    )
    expect(badAdmin).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        'talab: Invalid configuration: ADMIN_PHONE_NUMBERS: "0501234567" is not a mobile number in E.164 (+ country code)'
      ]
    })
    const badRetention = await Effect.runPromise(runCli(["retention"], { DATA_DIR: dataDir, RETENTION_DAYS: "0" }))
    expect(badRetention.code).toBe(1)
    expect(badRetention.stderr[0]).toMatch(/^talab: Invalid configuration: RETENTION_DAYS: /)
  })
})

describe("talab on the embedded database, no server running", () => {
  let dataDir = ""
  const phone = "+966512345678"
  beforeAll(async () => {
    dataDir = await initializedDataDir()
  })

  it("migrate applies what is missing, then says the schema is up to date", async () => {
    const first = await talab(dataDir, "migrate")
    expect(first.code).toBe(0)
    expect(first.stdout).toContain("migrated 0001_accounts")
    expect(first.stdout).toContain("migrated 0009_retention")
    expect(await talab(dataDir, "migrate")).toEqual({
      code: 0,
      stdout: ["migrations: the schema is up to date"],
      stderr: []
    })
  }, 120_000)

  // Each command once here, where every call opens the data directory (half a second of CPU); their refusals,
  // the same code behind the control socket, are checked below against a running server.
  it("admin grant, list and revoke", async () => {
    await onDatabase(dataDir, (sql) => aUser(sql, phone))

    expect(await talab(dataDir, "admin", "grant", "+966 51 234 5678")).toMatchObject({
      code: 0,
      stdout: [`granted admin to ${phone}`]
    })
    expect((await talab(dataDir, "admin", "list")).stdout).toEqual([
      `${ENV_ADMIN}\tADMIN_PHONE_NUMBERS`,
      `${phone}\tgranted`
    ])
    expect(await onDatabase(dataDir, (sql) => sql`SELECT is_admin FROM users WHERE phone_number = ${phone}`)).toEqual([
      { is_admin: true }
    ])

    expect(await talab(dataDir, "admin", "revoke", phone)).toMatchObject({
      code: 0,
      stdout: [`revoked the admin grant of ${phone}`]
    })
    expect((await talab(dataDir, "admin", "list")).stdout).toEqual([`${ENV_ADMIN}\tADMIN_PHONE_NUMBERS`])
  }, 120_000)

  it("sessions revoke ends every live session of the user and says how many", async () => {
    await onDatabase(dataDir, (sql) =>
      Effect.gen(function* () {
        const [user] = yield* sql<{ id: string }>`SELECT id FROM users WHERE phone_number = ${phone}`
        const future = new Date(Date.now() + 86_400_000)
        for (const expiresAt of [future, future, new Date(Date.now() - 1000)])
          yield* sql`INSERT INTO sessions (id, user_id, expires_at) VALUES (${randomUUID()}, ${user!.id}, ${expiresAt})`
      })
    )
    expect(await talab(dataDir, "sessions", "revoke", phone)).toMatchObject({
      code: 0,
      stdout: [`revoked 2 sessions of ${phone}`]
    })
    const live = await onDatabase(
      dataDir,
      (sql) => sql`SELECT count(*) AS n FROM sessions WHERE revoked_at IS NULL AND expires_at > now()`
    )
    expect(live).toEqual([{ n: 0 }])
  }, 120_000)

  it("users delete erases the account but its id, frees the number, and refuses an unknown number", async () => {
    const leaving = "+966500000077"
    const id = randomUUID()
    await onDatabase(dataDir, (sql) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO users (id, phone_number, name) VALUES (${id}, ${leaving}, ${"Leaving"})`
        yield* sql`INSERT INTO sessions (id, user_id, expires_at) VALUES (${randomUUID()}, ${id}, ${new Date(Date.now() + 86_400_000)})`
      })
    )
    const outcome = await talab(dataDir, "users", "delete", leaving)
    expect(outcome.code, outcome.stderr.join("\n")).toBe(0)
    expect(outcome.stdout[0]).toContain(`deleted the account of ${leaving}`)
    expect(outcome.stdout[0]).toContain("ended 1 session")
    const rows = await onDatabase(dataDir, (sql) => sql`SELECT phone_number, name, deleted FROM users WHERE id = ${id}`)
    expect(rows).toEqual([{ phone_number: null, name: null, deleted: true }])
    expect(await talab(dataDir, "users", "delete", leaving)).toMatchObject({
      code: 1,
      stderr: [`no user has signed in with ${leaving}`]
    })
    // The later tests of this database count its users.
    await onDatabase(dataDir, (sql) => sql`DELETE FROM users WHERE id = ${id}`)
  }, 120_000)

  it("retention runs once and reports what it removed", async () => {
    const outcome = await talab(dataDir, "retention")
    expect(outcome.code).toBe(0)
    expect(outcome.stdout[0]).toMatch(/^retention: removed 1 sessions, 0 OTP challenges, 0 notifications, 0 outbox/)
  }, 120_000)

  it("every command that changed data wrote one entry, by the operator on this host; refusals and reads none", async () => {
    const [user] = await onDatabase(
      dataDir,
      (sql) => sql<{ id: string }>`SELECT id FROM users WHERE phone_number = ${phone}`
    )
    // Refused or changing nothing: no entry.
    expect((await talab(dataDir, "admin", "revoke", phone)).stdout).toEqual([
      `${phone} was not an admin; nothing changed`
    ])
    expect((await talab(dataDir, "sessions", "revoke", phone)).stdout).toEqual([
      `${phone} had no live session; nothing changed`
    ])
    expect((await talab(dataDir, "admin", "grant", "+966599999999")).code).toBe(1)
    const entries = await auditOf(dataDir)
    expect(entries.map((entry) => entry.action)).toEqual([
      "user.admin_grant",
      "user.admin_revoke",
      "user.sessions_revoke",
      "user.delete",
      "database.retention"
    ])
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor_type: "operator", actor_host: hostname(), actor_id: null, request_id: null })
    }
    expect(entries.slice(0, 3).map((entry) => entry.target_id)).toEqual([user!.id, user!.id, user!.id])
    expect(entries[0]!.changes).toEqual({ is_admin: { before: false, after: true } })
    expect(entries[1]!.changes).toEqual({ is_admin: { before: true, after: false } })
    expect((entries[2]!.changes.revoked_session_ids!.after as Array<string>).length).toBe(2)
    expect(entries[3]).toMatchObject({ target_type: "user", changes: { deleted: { before: false, after: true } } })
    expect(entries[4]).toMatchObject({ target_type: null, changes: { removed_sessions: { before: null, after: 1 } } })
  }, 120_000)

  it("backup and restore: a copy, refused restores, and a restore that keeps the old data aside", async () => {
    const file = join(freshDataDir(), "talab.tar.gz")
    const backup = await talab(dataDir, "backup", file)
    expect(backup.code).toBe(0)
    expect(backup.stdout[0]).toContain(`to ${file}`)

    const garbage = join(freshDataDir(), "garbage.tar.gz")
    writeFileSync(garbage, "not a backup")
    const target = await migratedDataDir()
    expect(await talab(target, "restore", join(target, "missing.tar.gz"))).toMatchObject({ code: 1 })
    expect(await talab(target, "restore", garbage)).toMatchObject({ code: 1 })

    await onDatabase(target, (sql) => aUser(sql, "+966511111111"))
    const restored = await talab(target, "restore", file)
    expect(restored.code).toBe(0)
    expect(restored.stdout[0]).toContain("moved the data directory that was there to")
    expect(readdirSync(target).some((name) => name.startsWith("pgdata.before-restore-"))).toBe(true)
    expect(await onDatabase(target, (sql) => sql`SELECT phone_number FROM users ORDER BY phone_number`)).toEqual([
      { phone_number: phone }
    ])
    // The log came back whole, and goes on with the restore itself.
    const backedUp = (await auditOf(dataDir)).map((entry) => entry.action)
    const restoredLog = await auditOf(target)
    expect(restoredLog.map((entry) => entry.action)).toEqual([...backedUp, "database.restore"])
    expect(restoredLog.at(-1)).toMatchObject({
      actor_type: "operator",
      actor_host: hostname(),
      target_type: null,
      changes: { backup_file: { before: null, after: file } }
    })
    expect(restored.stdout.at(-1)).toBe("recorded the restore in the audit log")
  }, 180_000)
})

describe("talab while a server holds the embedded database", () => {
  it("hands the commands to the server, refusals included, and restore refuses until it stops", async () => {
    const dataDir = await migratedDataDir()
    const server = ControlChannelLive.pipe(
      Layer.provideMerge(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir }))),
      Layer.provide(AppConfig.layer({ dataDir, adminPhoneNumbers: [ENV_ADMIN] }))
    )
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // Only the server's user may hand it commands: the socket and its directory are owner-only.
          const { socket } = JSON.parse(readFileSync(controlFile(dataDir), "utf8")) as { socket: string }
          expect(statSync(socket).mode & 0o077).toBe(0)
          expect(statSync(dirname(socket)).mode & 0o077).toBe(0)
          yield* aUser(sql, "+966551234567")
          const command = (...args: Array<string>) => Effect.promise(() => talab(dataDir, ...args))
          const granted = yield* command("admin", "grant", "+966551234567")
          expect(granted).toMatchObject({ code: 0, stdout: ["granted admin to +966551234567"] })
          // The server's own connection sees the change at once.
          expect(yield* sql`SELECT is_admin FROM users WHERE phone_number = '+966551234567'`).toEqual([
            { is_admin: true }
          ])

          // The refusals, and the answers that change nothing.
          expect(yield* command("admin", "grant", "not-a-phone")).toMatchObject({ code: 1 })
          expect(yield* command("admin", "grant", "+966598765432")).toMatchObject({
            code: 1,
            stderr: ["no user has signed in with +966598765432"]
          })
          expect((yield* command("admin", "grant", "+966551234567")).stdout[0]).toContain("already granted")
          const envListed = yield* command("admin", "revoke", ENV_ADMIN)
          expect(envListed.code).toBe(1)
          expect(envListed.stderr.join(" ")).toContain("is in ADMIN_PHONE_NUMBERS")
          expect(yield* command("admin", "revoke", "+966551234567")).toMatchObject({ code: 0 })
          expect((yield* command("admin", "revoke", "+966551234567")).stdout[0]).toContain("was not an admin")
          expect((yield* command("sessions", "revoke", "+966551234567")).stdout[0]).toContain("had no live session")
          expect(yield* command("sessions", "revoke", "+966598765432")).toMatchObject({ code: 1 })
          yield* command("admin", "grant", "+966551234567")

          const restore = yield* command("restore", "x.tar.gz")
          expect(restore.code).toBe(1)
          expect(restore.stderr[0]).toMatch(/^the server \(pid \d+\) is running on .*: stop it first$/)
        }).pipe(Effect.provide(server), Effect.orDie)
      )
    )
    // Stopped: the control file is gone, and the CLI opens the database itself again.
    expect(readdirSync(dataDir)).not.toContain("talab-control.json")
    expect(controlFile(dataDir)).toContain(dataDir)
    expect((await talab(dataDir, "admin", "list")).stdout).toContain("+966551234567\tgranted")
  }, 180_000)

  it("sessions revoke and admin grant handed to the server reach its session events (sockets, session cache) and drop the push tokens", async () => {
    const dataDir = await migratedDataDir()
    const ended: Array<string> = []
    const changed: Array<string> = []
    const server = ControlChannelLive.pipe(
      Layer.provideMerge(MigratedDatabaseLayer(DatabaseOptions.Embedded({ dataDir }))),
      Layer.provide(
        Layer.succeed(SessionEvents, {
          revoked: (id) => Effect.sync(() => void ended.push(id)),
          userChanged: (id) => Effect.sync(() => void changed.push(id))
        })
      ),
      Layer.provide(AppConfig.layer({ dataDir }))
    )
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const userId = yield* aUser(sql, "+966551234568")
          const sessionId = randomUUID()
          yield* sql`INSERT INTO sessions (id, user_id, expires_at) VALUES (${sessionId}, ${userId}, ${new Date(Date.now() + 86_400_000)})`
          yield* sql`INSERT INTO device_tokens (id, user_id, session_id, platform, push_token)
            VALUES (${randomUUID()}, ${userId}, ${sessionId}, 'ios', 'push-of-revoked')`
          const revoked = yield* Effect.promise(() => talab(dataDir, "sessions", "revoke", "+966551234568"))
          expect(revoked).toMatchObject({ code: 0, stdout: ["revoked 1 session of +966551234568"] })
          expect(ended).toEqual([sessionId])
          expect(yield* sql`SELECT count(*)::int AS n FROM device_tokens`).toEqual([{ n: 0 }])
          expect(changed).toEqual([])
          const granted = yield* Effect.promise(() => talab(dataDir, "admin", "grant", "+966551234568"))
          expect(granted).toMatchObject({ code: 0, stdout: ["granted admin to +966551234568"] })
          expect(changed).toEqual([userId])
        }).pipe(Effect.provide(server), Effect.orDie)
      )
    )
  }, 180_000)
})
