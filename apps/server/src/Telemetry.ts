import { NodeSdk } from "@effect/opentelemetry"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { AppConfig } from "@talab/http-server"
import { Effect, Layer } from "effect"

/**
 * OpenTelemetry for the server's lifetime when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans and Effect's metrics
 * exported over OTLP/HTTP (JSON). The exporters read the standard OTEL_* variables themselves (endpoint,
 * per-signal endpoints, headers, timeouts, batch delays); at shutdown what is buffered is flushed. Without the
 * endpoint nothing is loaded into the runtime: no tracer, no exporter, no timer.
 */
export const OtlpFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    config.telemetry.otlpEndpoint === undefined
      ? Layer.empty
      : NodeSdk.layer(() => ({
          resource: { serviceName: config.telemetry.serviceName },
          spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
          metricReader: new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })
        }))
  )
)
