import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import { FileStore } from "@talab/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { describeSchemaState, SchemaStatus } from "../db/SchemaStatus.js"
import { entityTagOf, ifNoneMatchNames } from "./ConditionalGet.js"
import { ServerLifecycle } from "./Lifecycle.js"

/** Health and uploaded files: routes outside the REST contract (the reference is in Reference.ts). */
export const ExtraRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const files = yield* FileStore
    const lifecycle = yield* ServerLifecycle
    const schema = yield* SchemaStatus
    yield* router.get("/health/live", HttpServerResponse.json({ status: "ok" }))
    const databaseReady = sql`SELECT 1`.pipe(
      Effect.timeout(Duration.seconds(2)),
      Effect.flatMap(() => HttpServerResponse.json({ status: "ok", database: "up" })),
      Effect.catchAll(() => HttpServerResponse.json({ status: "unavailable", database: "down" }, { status: 503 }))
    )
    // The schema is checked first (it costs nothing once current): a database not yet migrated is up but useless.
    const schemaThenDatabase = Effect.flatMap(schema.state, (state) =>
      state._tag === "Current"
        ? databaseReady
        : HttpServerResponse.json(
            {
              status: "unavailable",
              database: state._tag === "Behind" ? "behind" : "down",
              reason: describeSchemaState(state)
            },
            { status: 503 }
          )
    )
    // A draining server is taken out of the load balancer's rotation before its connections close.
    yield* router.get(
      "/health/ready",
      Effect.suspend(() =>
        lifecycle.isDraining() ? HttpServerResponse.json({ status: "draining" }, { status: 503 }) : schemaThenDatabase
      )
    )
    yield* router.get(
      "/uploads/avatars/:key",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const key = params.key ?? ""
        if (!/^[A-Za-z0-9-]+\.(webp|jpg|png)$/.test(key)) return HttpServerResponse.empty({ status: 404 })
        const file = yield* files.get(key)
        if (Option.isNone(file)) return HttpServerResponse.empty({ status: 404 })
        const request = yield* HttpServerRequest.HttpServerRequest
        // A key is never reused for other bytes, but the tag is still the bytes' own, whichever store served them.
        const etag = entityTagOf(file.value.bytes)
        const headers = {
          "cache-control": "public, max-age=31536000, immutable",
          etag,
          "x-content-type-options": "nosniff"
        }
        if (ifNoneMatchNames(request.headers["if-none-match"], etag)) {
          return HttpServerResponse.empty({ status: 304, headers })
        }
        return HttpServerResponse.uint8Array(file.value.bytes, { contentType: file.value.contentType, headers })
      })
    )
  })
)
