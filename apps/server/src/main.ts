import { NodeRuntime } from "@effect/platform-node"
import { AppConfig, describeStartFailure, ProductionServer, withLogging } from "@talab/http-server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { OtlpFromConfig } from "./Telemetry.js"

/** The settings read once; the tracer installed before the server is built, so the server's fibers carry it. */
const main = Effect.gen(function* () {
  const settings = yield* AppConfig.fromEnvironment
  const server = ProductionServer.pipe(
    Layer.provide(OtlpFromConfig),
    Layer.provideMerge(Layer.succeed(AppConfig, settings))
  )
  return yield* Layer.launch(server).pipe(withLogging(settings))
})

const reportStartFailure = (error: unknown) =>
  Effect.sync(() => {
    process.stderr.write(`${describeStartFailure(error)}\n`)
    process.exitCode = 1
  })

main.pipe(Effect.catchAll(reportStartFailure), NodeRuntime.runMain({ disablePrettyLogger: true }))
