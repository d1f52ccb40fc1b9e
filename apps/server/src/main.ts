import { NodeRuntime } from "@effect/platform-node"
import { runProductionServer } from "@talab/http-server"
import { OtlpFromConfig } from "./Telemetry.js"

runProductionServer(OtlpFromConfig).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
