import { AppConfig } from "@talab/http-server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The OpenTelemetry SDK and exporters, loaded only when an endpoint is set (about 6 MB of RSS otherwise). */
const loadOpenTelemetry = () =>
  Promise.all([
    import("@effect/opentelemetry"),
    import("@opentelemetry/exporter-metrics-otlp-http"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/sdk-trace-base")
  ])

/**
 * OpenTelemetry for the server's lifetime when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans and Effect's metrics
 * exported over OTLP/HTTP (JSON). The exporters read the standard OTEL_* variables themselves (endpoint,
 * per-signal endpoints, headers, timeouts, batch delays); at shutdown what is buffered is flushed. Without the
 * endpoint nothing is loaded, not even the modules: no tracer, no exporter, no timer.
 */
export const OtlpFromConfig = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    config.telemetry.otlpEndpoint === undefined
      ? Effect.succeed(Layer.empty)
      : Effect.map(
          Effect.promise(loadOpenTelemetry),
          ([
            { NodeSdk },
            { OTLPMetricExporter },
            { OTLPTraceExporter },
            { PeriodicExportingMetricReader },
            { BatchSpanProcessor }
          ]) =>
            NodeSdk.layer(() => ({
              resource: { serviceName: config.telemetry.serviceName },
              spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
              metricReader: new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })
            }))
        )
  )
)
