import * as Effect from "effect/Effect"
import type { Redis } from "ioredis"
import { watchRedis } from "./Metrics.js"

/*
 * ioredis's status is "ready" only while its connection is up and answering (it leaves "ready" as soon as the
 * socket closes, and reconnects on its own), so it is what `talab_redis_up` reports, read at each collection.
 */

/** Reports `client`'s readiness as `talab_redis_up{connection}` for the life of the scope. */
export const watchReadiness = (connection: string, client: Redis) =>
  Effect.acquireRelease(
    Effect.sync(() => watchRedis(connection, () => client.status === "ready")),
    (stop) => Effect.sync(stop)
  ).pipe(Effect.asVoid)
