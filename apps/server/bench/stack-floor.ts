/*
 * The stack's own floor, beside bench/floor.ts: the least an `HttpApi` endpoint on this project's stack costs.
 * `GET /api/v1/requests/{id}` declared with `@effect/platform`'s `HttpApi` (the path's UUID decoded by its
 * schema, a bearer security middleware, the success encoded by its schema), served by `@effect/platform-node`,
 * the row read through `@effect/sql-pg` — with the floor's token check (jose, HS256, key imported once), the
 * floor's SQL and the floor's body, and nothing of Talab's (no request pipeline, session, rate limit, log line,
 * ETag). What separates it from the floor is what the stack costs; what separates Talab from it is ours.
 */
import { createServer } from "node:http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpMiddleware,
  HttpServer
} from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { jwtVerify } from "jose"
import { DETAIL, detailOf, type FloorServer } from "./floor.js"

const Detail = Schema.Struct({
  id: Schema.String,
  buyer: Schema.Struct({ id: Schema.String, name: Schema.NullOr(Schema.String) }),
  category: Schema.String,
  product_brand: Schema.String,
  product_model: Schema.String,
  condition_pref: Schema.String,
  budget_min: Schema.Number,
  budget_max: Schema.Number,
  location_district: Schema.NullOr(Schema.String),
  location_city: Schema.String,
  notes: Schema.NullOr(Schema.String),
  status: Schema.String,
  offer_count: Schema.Number,
  created_at: Schema.Date,
  closed_at: Schema.NullOr(Schema.Date)
})

class Caller extends Context.Tag("StackFloor/Caller")<Caller, { readonly id: string }>() {}

class Bearer extends HttpApiMiddleware.Tag<Bearer>()("StackFloor/Bearer", {
  failure: HttpApiError.Unauthorized,
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const Api = HttpApi.make("stack-floor")
  .add(
    HttpApiGroup.make("requests").add(
      HttpApiEndpoint.get("detail", "/requests/:id")
        .setPath(Schema.Struct({ id: Schema.UUID }))
        .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Detail }))
        .addError(HttpApiError.NotFound)
        .middleware(Bearer)
    )
  )
  .prefix("/api/v1")

const RequestsLive = HttpApiBuilder.group(Api, "requests", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("detail", ({ path }) =>
      sql.unsafe<Record<string, any>>(DETAIL, [path.id]).pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.fail(new HttpApiError.NotFound())
            : Effect.succeed({ success: true as const, data: detailOf(rows[0]!) })
        )
      )
    )
  })
)

const bearerLive = (jwtSecret: string) => {
  const key = new TextEncoder().encode(jwtSecret)
  return Layer.succeed(
    Bearer,
    Bearer.of({
      bearer: (token) =>
        Effect.tryPromise(() => jwtVerify(Redacted.value(token), key, { algorithms: ["HS256"] })).pipe(
          Effect.flatMap(({ payload }) =>
            payload.typ === "access" && typeof payload.sub === "string"
              ? Effect.succeed({ id: payload.sub })
              : Effect.fail(new HttpApiError.Unauthorized())
          ),
          Effect.catchTag("UnknownException", () => Effect.fail(new HttpApiError.Unauthorized()))
        )
    })
  )
}

/** Starts the stack floor on `databaseUrl`, checking tokens signed with `jwtSecret`, with a pool of `connections`. */
export const startStackFloorServer = async (
  databaseUrl: string,
  jwtSecret: string,
  connections = 10
): Promise<FloorServer> => {
  const sql = PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: connections })
  const api = HttpApiBuilder.api(Api).pipe(Layer.provide(RequestsLive), Layer.provide(bearerLive(jwtSecret)))
  const runtime = ManagedRuntime.make(
    HttpApiBuilder.serve().pipe(
      Layer.provide(api),
      // As the server does when no exporter is set: no span per request.
      HttpMiddleware.withTracerDisabledWhen(() => true),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(sql)
    )
  )
  const address = await runtime.runPromise(HttpServer.HttpServer.pipe(Effect.map((server) => server.address)))
  if (address._tag !== "TcpAddress") throw new Error("the stack floor listens on TCP")
  return {
    apiUrl: `http://127.0.0.1:${address.port}/api/v1`,
    close: () => runtime.dispose()
  }
}
