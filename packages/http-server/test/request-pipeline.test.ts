import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import { requestPipeline } from "../src/server/RequestPipeline.js"

class ServerWide extends Context.Tag("test/ServerWide")<ServerWide, string>() {}

/** Serves `app` through the pipeline on a runtime that holds a service of the whole server, and sends it `request`. */
const serve = async (app: HttpApp.Default<never, HttpServerRequest.HttpServerRequest>, request: Request) => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Layer.succeed(ServerWide, "a service of the whole server"), Logger.minimumLogLevel(LogLevel.None))
  )
  try {
    const handler = HttpApp.toWebHandlerRuntime(await runtime.runtime())(requestPipeline({ hsts: false })(app))
    const response = await handler(request)
    return { response, body: (await response.json()) as Record<string, any> }
  } finally {
    await runtime.dispose()
  }
}

const get = (headers: Record<string, string> = {}) => new Request("http://localhost/api/v1/requests", { headers })

describe("request pipeline", () => {
  it("gives a handler its request but no service of the server it was not built with", async () => {
    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const serverWide = yield* Effect.serviceOption(ServerWide)
      return HttpServerResponse.unsafeJson({ url: request.url, reachesServerWide: Option.isSome(serverWide) })
    })
    const { response, body } = await serve(app, get())
    expect(response.status).toBe(200)
    expect(body).toEqual({ url: "/api/v1/requests", reachesServerWide: false })
  })

  it("echoes a client's plain X-Request-Id, and replaces one that could forge a log line", async () => {
    const app = HttpServerResponse.unsafeJson({})
    const kept = await serve(app, get({ "x-request-id": "client-42.a:b" }))
    expect(kept.response.headers.get("x-request-id")).toBe("client-42.a:b")
    const replaced = await serve(app, get({ "x-request-id": "forged request_id=1" }))
    expect(replaced.response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("answers the framework's bodiless 404 as the envelope, in the language asked for", async () => {
    const { response, body } = await serve(HttpServerResponse.empty({ status: 404 }), get({ "accept-language": "en" }))
    expect(response.status).toBe(404)
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(body).toEqual({
      success: false,
      error: { code: "NOT_FOUND", message: "The resource was not found", details: {} }
    })
  })

  it("answers a defect as a 500 envelope that shows nothing of it", async () => {
    const { response, body } = await serve(Effect.die(new Error("relation users does not exist")), get())
    expect(response.status).toBe(500)
    expect(body.error.code).toBe("INTERNAL_ERROR")
    expect(JSON.stringify(body)).not.toContain("relation")
  })
})
