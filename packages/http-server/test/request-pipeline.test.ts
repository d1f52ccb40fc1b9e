import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { requestPipeline } from "../src/server/RequestPipeline.js"

class ServerWide extends Context.Tag("test/ServerWide")<ServerWide, string>() {}

/** An app answering with the keys of its context, served through the pipeline on a runtime holding `ServerWide`. */
const serveContextKeys = async () => {
  const runtime = ManagedRuntime.make(Layer.succeed(ServerWide, "a service of the whole server"))
  const app = Effect.map(Effect.context<HttpServerRequest.HttpServerRequest>(), (context) =>
    HttpServerResponse.unsafeJson({ keys: [...context.unsafeMap.keys()] })
  )
  const handler = HttpApp.toWebHandlerRuntime(await runtime.runtime())(requestPipeline({ hsts: false })(app))
  try {
    const response = await handler(new Request("http://localhost/api/v1/requests"))
    return { response, keys: ((await response.json()) as { keys: Array<string> }).keys }
  } finally {
    await runtime.dispose()
  }
}

describe("request pipeline", () => {
  it("runs a request in the request's own services, not in every service of the server", async () => {
    const { response, keys } = await serveContextKeys()
    expect(response.status).toBe(200)
    expect(keys).toContain(HttpServerRequest.HttpServerRequest.key)
    // Each step of the framework copies the request's context: the server's services would be copied with it.
    expect(keys).not.toContain(ServerWide.key)
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })
})
