import { chmod, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises"
import { createServer, request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { SessionEvents } from "../auth/SessionEvents.js"
import { AppConfig } from "../config/AppConfig.js"
import { type Outcome, runCommand } from "./Commands.js"

/*
 * PGlite is one process's database: a second process must not open the data directory the server holds. So
 * while the server runs on the embedded database it takes `talab` commands itself, on a Unix socket in a
 * directory only its user can enter; DATA_DIR/talab-control.json says where. `talab backup` then copies
 * the database the server has open, between two of its statements.
 */

/** The file in DATA_DIR naming the running server's control socket. */
export const controlFile = (dataDir: string) => join(dataDir, "talab-control.json")

interface ControlAddress {
  readonly pid: number
  readonly socket: string
}

const readBody = (stream: NodeJS.ReadableStream) =>
  new Promise<string>((resolvePromise, reject) => {
    let text = ""
    stream.setEncoding("utf8")
    stream.on("data", (chunk: string) => (text += chunk))
    stream.on("end", () => resolvePromise(text))
    stream.on("error", reject)
  })

/** The server side, started with the server on an embedded database on disk (nothing on PostgreSQL or memory://). */
export const ControlChannelLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (config.databaseUrl !== undefined && config.databaseUrl.trim() !== "") return
    // Everything the server was built with: `talab users delete` runs on its AccountErasure (its file store, its hub).
    const runtime = yield* Effect.runtime<SqlClient.SqlClient>()
    // The server's hub, so `talab sessions revoke` closes the sockets it holds.
    const sessionEvents = yield* Effect.serviceOption(SessionEvents)
    const directory = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "talab-ctl-"))),
      (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
    )
    const socket = join(directory, "ctl.sock")
    const server = createServer((req, res) => {
      void readBody(req)
        .then(async (text) => {
          const { name, argument } = JSON.parse(text) as { name: string; argument?: string }
          const outcome = await Runtime.runPromise(runtime)(
            runCommand(name, argument, {
              adminPhoneNumbers: config.adminPhoneNumbers,
              retentionDays: config.retentionDays,
              ...Option.match(sessionEvents, {
                // No realtime layer, so no session cache either: nobody to tell of a user's change.
                onNone: () => ({ usersChanged: () => Effect.void }),
                onSome: (events) => ({
                  endSessions: (ids: ReadonlyArray<string>) => Effect.forEach(ids, events.revoked, { discard: true }),
                  usersChanged: (ids: ReadonlyArray<string>) =>
                    Effect.forEach(ids, events.userChanged, { discard: true })
                })
              })
            }).pipe(Effect.annotateLogs({ command: `talab ${name}` }))
          )
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(outcome))
        })
        .catch((error) => res.writeHead(400).end(String(error)))
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        // The directory (mkdtemp, 0700) already keeps other users out; the socket itself is owner-only too.
        server.listen(socket, () => {
          chmod(socket, 0o600).then(
            () => resume(Effect.void),
            (error) => resume(Effect.die(error))
          )
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
    )
    const file = controlFile(config.dataDir)
    const address: ControlAddress = { pid: process.pid, socket }
    yield* Effect.acquireRelease(
      Effect.promise(() => writeFile(file, JSON.stringify(address), { mode: 0o600 })),
      () =>
        // Removed only while it still names this process: a later server may have written its own.
        Effect.promise(async () => {
          const current = await readFile(file, "utf8").catch(() => "")
          if (current === JSON.stringify(address)) await unlink(file).catch(() => {})
        })
    )
  })
)

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The control socket of a server running on `dataDir`, or undefined when none is (a stale file is ignored). */
export const runningServer = async (dataDir: string): Promise<ControlAddress | undefined> => {
  const text = await readFile(controlFile(dataDir), "utf8").catch(() => undefined)
  if (text === undefined) return undefined
  try {
    const address = JSON.parse(text) as ControlAddress
    return isAlive(address.pid) ? address : undefined
  } catch {
    return undefined
  }
}

/** Asks the running server to run a command; the backup's file name is made absolute here, where it was typed. */
export const forward = (address: ControlAddress, name: string, argument: string | undefined) =>
  new Promise<Outcome>((resolvePromise, reject) => {
    const body = JSON.stringify({ name, argument: name === "backup" && argument ? resolve(argument) : argument })
    const call = request(
      { socketPath: address.socket, path: "/run", method: "POST", headers: { "content-type": "application/json" } },
      (response) => {
        void readBody(response).then((text) => {
          if (response.statusCode === 200) resolvePromise(JSON.parse(text) as Outcome)
          else reject(new Error(`the server answered ${response.statusCode}: ${text}`))
        }, reject)
      }
    )
    call.on("error", reject)
    call.end(body)
  })
