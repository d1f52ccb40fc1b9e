import * as Effect from "effect/Effect"
import { Marketplace, wholeFlow } from "./Flow.js"

Effect.runPromise(wholeFlow.pipe(Effect.provide(Marketplace))).then(
  (outcome) => console.log(JSON.stringify(outcome, null, 2)),
  (error) => {
    console.error(error)
    process.exitCode = 1
  }
)
