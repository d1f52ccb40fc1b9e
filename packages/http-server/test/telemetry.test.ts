import { describe, expect, it } from "@effect/vitest"
import { PushOutcome, PushSender, RateLimiter, SmsSender } from "@talab/core"
import { ConfigProvider, Context, Effect, Either, Layer } from "effect"
import { parsePrometheusText } from "../../../test-support/prometheus.js"
import { AppConfig, describeConfigError, isConfigError } from "../src/config/AppConfig.js"
import { InstrumentedPorts, limitOfKey, reasonLabel } from "../src/telemetry/Instrumented.js"
import {
  isRecording,
  recordHttpRequest,
  recordMessagesDelivered,
  registerGauges,
  startRecording
} from "../src/telemetry/Metrics.js"
import { prometheusText } from "../src/telemetry/Prometheus.js"

const scrape = () => parsePrometheusText(prometheusText())

describe("metric recorders", () => {
  it("record nothing until a telemetry layer turns recording on", () => {
    expect(isRecording()).toBe(false)
    recordHttpRequest("GET", "/never-recorded", 200, 0.01)
    expect(prometheusText()).not.toContain("/never-recorded")
  })

  it("print a Prometheus exposition: counters, gauges and cumulative histograms with escaped labels", () => {
    const stop = startRecording()
    try {
      registerGauges()
      const route = '/odd/"quoted"\\path'
      const before = scrape().value("talab_ws_messages_delivered_total") ?? 0
      recordHttpRequest("POST", route, 201, 0.003)
      recordHttpRequest("POST", route, 201, 0.2)
      recordHttpRequest("POST", route, 201, 30)
      recordMessagesDelivered(2)
      const metrics = scrape()
      const labels = { method: "POST", route, status: "201" }
      expect(metrics.value("talab_http_requests_total", labels)).toBe(3)
      expect(metrics.value("talab_http_request_duration_seconds_bucket", { ...labels, le: "0.005" })).toBe(1)
      expect(metrics.value("talab_http_request_duration_seconds_bucket", { ...labels, le: "0.25" })).toBe(2)
      expect(metrics.value("talab_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(3)
      expect(metrics.value("talab_http_request_duration_seconds_sum", labels)).toBeCloseTo(30.203)
      expect(metrics.value("talab_ws_messages_delivered_total")).toBe(before + 2)
      expect(metrics.types.get("talab_ws_open_sockets")).toBe("gauge")
      expect(metrics.help.get("talab_http_requests_total")).toMatch(/route pattern/)
    } finally {
      stop()
    }
    expect(isRecording()).toBe(false)
  })
})

describe("labels stay bounded", () => {
  it("names the limit a rate-limit key counts against", () => {
    expect(limitOfKey("auth-ip:10.0.0.1")).toBe("auth")
    expect(limitOfKey("otp:+966551234567")).toBe("otp")
    expect(limitOfKey("api:0b6c…")).toBe("api")
    expect(limitOfKey("ws-messages:0b6c…")).toBe("ws_messages")
    expect(limitOfKey("something-new:x")).toBe("other")
  })

  it("reduces a provider's free-text reason to a status or a kind of failure", () => {
    expect(reasonLabel(PushOutcome.Failed({ reason: "FCM answered HTTP 400 INVALID_ARGUMENT: bad token" }))).toBe(
      "http_400"
    )
    expect(reasonLabel(PushOutcome.Retryable({ reason: "APNs answered HTTP 429 TooManyRequests" }))).toBe("http_429")
    expect(reasonLabel(PushOutcome.Retryable({ reason: "APNs unreachable: ECONNRESET" }))).toBe("unreachable")
    expect(reasonLabel(PushOutcome.Retryable({ reason: "FCM did not answer within 10s" }))).toBe("timeout")
    expect(reasonLabel(PushOutcome.Unregistered())).toBe("unregistered")
    expect(reasonLabel(PushOutcome.Failed({ reason: "something else entirely" }))).toBe("other")
  })
})

describe("instrumented ports", () => {
  const adapters = Layer.mergeAll(
    Layer.succeed(PushSender, {
      send: () => Effect.succeed(PushOutcome.Retryable({ reason: "FCM answered HTTP 503 UNAVAILABLE: later" }))
    }),
    Layer.succeed(RateLimiter, {
      consume: ({ limit }) => Effect.succeed({ allowed: false, limit, remaining: 0, retryAfterMs: 1000, resetMs: 1000 })
    }),
    Layer.succeed(SmsSender, { send: () => Effect.void })
  )
  const ports = (settings: Parameters<typeof AppConfig.make>[0]) =>
    InstrumentedPorts.pipe(Layer.provide(Layer.merge(adapters, AppConfig.layer(settings))))
  const push = {
    userId: "u",
    platform: "android" as const,
    pushToken: "t",
    type: "message" as const,
    title: "",
    body: "",
    data: {}
  }
  const exercise = Effect.gen(function* () {
    yield* (yield* PushSender).send(push)
    yield* (yield* RateLimiter).consume({ key: "otp:+966551234567", limit: 3, windowMs: 1000 })
  })
  const failures = { provider: "fcm", outcome: "retryable", reason: "http_503" }

  it.effect("count push failures by provider, outcome and reason, and rate-limit refusals by limit", () =>
    Effect.gen(function* () {
      const stop = startRecording()
      const before = scrape()
      yield* exercise.pipe(
        Effect.provide(
          ports({
            telemetry: { otlpEndpoint: undefined, serviceName: "talab", metricsPort: 9464 },
            push: { provider: "fcm", outboxFile: undefined }
          })
        )
      )
      stop()
      const after = scrape()
      expect(
        (after.value("talab_push_failures_total", failures) ?? 0) -
          (before.value("talab_push_failures_total", failures) ?? 0)
      ).toBe(1)
      expect(
        (after.value("talab_rate_limit_refusals_total", { limit: "otp" }) ?? 0) -
          (before.value("talab_rate_limit_refusals_total", { limit: "otp" }) ?? 0)
      ).toBe(1)
    })
  )

  it.effect("are the adapters themselves when telemetry is off", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(ports({ push: { provider: "fcm", outboxFile: undefined } }))
      const built = yield* Layer.build(adapters)
      expect(Context.get(context, PushSender)).toBe(Context.get(built, PushSender))
      expect(Context.get(context, RateLimiter)).toBe(Context.get(built, RateLimiter))
      expect(Context.get(context, SmsSender)).toBe(Context.get(built, SmsSender))
    }).pipe(Effect.scoped)
  )
})

describe("telemetry configuration", () => {
  const telemetryFrom = (variables: Record<string, string>) =>
    Layer.build(AppConfig.fromEnv).pipe(
      Effect.map((context) => Context.get(context, AppConfig).telemetry),
      Effect.scoped,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
    )
  const failureLine = (variables: Record<string, string>) =>
    Effect.map(Effect.either(telemetryFrom(variables)), (result) => {
      if (Either.isRight(result)) return "started"
      expect(isConfigError(result.left)).toBe(true)
      return describeConfigError(result.left as never)
    })

  it.effect("is off by default", () =>
    Effect.gen(function* () {
      expect(yield* telemetryFrom({})).toEqual({
        otlpEndpoint: undefined,
        serviceName: "talab",
        metricsPort: undefined
      })
    })
  )

  it.effect("reads the standard OTEL variables and METRICS_PORT", () =>
    Effect.gen(function* () {
      expect(
        yield* telemetryFrom({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
          OTEL_SERVICE_NAME: "talab-eu",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          METRICS_PORT: "9464"
        })
      ).toEqual({ otlpEndpoint: "http://collector:4318", serviceName: "talab-eu", metricsPort: 9464 })
      expect(
        (yield* telemetryFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }))
          .otlpEndpoint
      ).toBeUndefined()
    })
  )

  it.effect("refuses bad values with one line naming the variable", () =>
    Effect.gen(function* () {
      expect(yield* failureLine({ METRICS_PORT: "metrics" })).toMatch(/^Invalid configuration: METRICS_PORT: /)
      expect(yield* failureLine({ METRICS_PORT: "3000" })).toBe(
        "Invalid configuration: METRICS_PORT: must differ from PORT"
      )
      expect(yield* failureLine({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toBe(
        "Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s):// URL"
      )
      expect(
        yield* failureLine({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317",
          OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
        })
      ).toMatch(/^Invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/json/)
    })
  )
})
