import { randomUUID } from "node:crypto"
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { EmbeddedPglite } from "../db/Database.js"
import { OperatorRefused } from "./Operator.js"

const refused = (message: string) => new OperatorRefused({ message })

const POSTGRES_HINT = "on PostgreSQL back up with pg_dump and restore with pg_restore (see docs/OPERATIONS.md)"

/**
 * Writes a gzipped tarball of the embedded database's data directory to `file`. PGlite takes it between two
 * statements (no statement runs while it copies), so it is the state a crash at that instant would leave,
 * which PostgreSQL's recovery turns into every committed transaction and nothing else. Written to a temporary
 * name beside `file` and renamed, so `file` is never half a backup.
 */
export const backupEmbedded = (file: string) =>
  Effect.gen(function* () {
    const embedded = yield* Effect.serviceOption(EmbeddedPglite)
    if (Option.isNone(embedded)) return yield* refused(`backup is for the embedded database; ${POSTGRES_HINT}`)
    if (embedded.value.dataDir === undefined) return yield* refused("DATABASE_URL=memory:// keeps nothing to back up")
    const target = resolve(file)
    const size = yield* Effect.tryPromise({
      try: async () => {
        const dump = await embedded.value.db.dumpDataDir("gzip")
        const bytes = new Uint8Array(await dump.arrayBuffer())
        await mkdir(dirname(target), { recursive: true })
        const temporary = `${target}.${randomUUID()}.tmp`
        await writeFile(temporary, bytes)
        await rename(temporary, target)
        return bytes.byteLength
      },
      catch: (cause) => refused(`could not write ${target}: ${String((cause as Error)?.message ?? cause)}`)
    })
    return [`backed up ${embedded.value.dataDir} to ${target} (${size} bytes)`]
  })

const isEmptyOrMissing = async (directory: string) => {
  try {
    return (await readdir(directory)).length === 0
  } catch {
    return true
  }
}

/**
 * Makes `dataDir/pgdata` the database in `file` (a `talab backup`). The server must be stopped. A data
 * directory already there is kept beside it as `pgdata.before-restore-<time>`, never deleted.
 */
export const restoreEmbedded = (file: string, dataDir: string, now: Date) =>
  Effect.tryPromise({
    try: async () => {
      const source = resolve(file)
      const bytes = await readFile(source).catch(() => undefined)
      if (bytes === undefined) throw refused(`cannot read ${source}`)
      const pgdata = resolve(join(dataDir, "pgdata"))
      const lines: Array<string> = []
      let aside: string | undefined
      if (!(await isEmptyOrMissing(pgdata))) {
        aside = `${pgdata}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`
        await rename(pgdata, aside)
        lines.push(`moved the data directory that was there to ${aside}`)
      }
      await mkdir(pgdata, { recursive: true })
      try {
        const db = new PGlite(pgdata, { loadDataDir: new Blob([bytes]) })
        await db.waitReady
        await db.query("SELECT 1")
        await db.close()
      } catch (cause) {
        await rm(pgdata, { recursive: true, force: true })
        if (aside !== undefined) await rename(aside, pgdata)
        throw refused(`${source} is not a talab backup: ${String((cause as Error)?.message ?? cause)}`)
      }
      const { size } = await stat(source)
      lines.push(`restored ${pgdata} from ${source} (${size} bytes)`)
      return lines
    },
    catch: (error) =>
      error instanceof OperatorRefused ? error : refused(`restore failed: ${String((error as Error)?.message)}`)
  })
