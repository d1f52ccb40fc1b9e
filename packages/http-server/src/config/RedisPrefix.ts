import { createHash } from "node:crypto"
import { hostname } from "node:os"
import { resolve } from "node:path"

/*
 * Every Redis key and channel of a deployment starts with REDIS_PREFIX, so deployments sharing one Redis never
 * hear or count each other: pub/sub ignores Redis's database numbers, so `SELECT`ing another one is no fence.
 * Unset, it is derived from the database the deployment serves, which is what makes instances one deployment:
 * its instances agree on it with no setting, and two deployments (two databases) cannot share it.
 */

/** What names the database: PostgreSQL's host, port and database (not the user or password, which may rotate);
 * the embedded one's folder on this host. */
const databaseIdentity = (databaseUrl: string | undefined, dataDir: string) => {
  const trimmed = databaseUrl?.trim() ?? ""
  if (/^postgres(ql)?:\/\//i.test(trimmed)) {
    try {
      const url = new URL(trimmed)
      return `postgres://${url.hostname.toLowerCase()}:${url.port || "5432"}${url.pathname}`
    } catch {
      return trimmed
    }
  }
  if (trimmed.startsWith("memory:")) return `memory:${hostname()}:${process.pid}`
  return `embedded:${hostname()}:${resolve(dataDir)}`
}

/** REDIS_PREFIX as set, else `talab:<12 hex of the database's identity>:`. */
export const redisPrefixFor = (settings: {
  readonly redisPrefix: string | undefined
  readonly databaseUrl: string | undefined
  readonly dataDir: string
}) =>
  settings.redisPrefix ??
  `talab:${createHash("sha256").update(databaseIdentity(settings.databaseUrl, settings.dataDir)).digest("hex").slice(0, 12)}:`
