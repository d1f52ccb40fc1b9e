import { SmsDeliveryFailed, SmsSender } from "@talab/core"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { maskPhone, maskPhonesIn } from "../LogMasks.js"

export interface TwilioSmsOptions {
  readonly accountSid: string
  readonly authToken: string
  /** Sender: an E.164 number or a Messaging Service SID the account owns. */
  readonly from: string
  /** Default `https://api.twilio.com`; tests point it at a local fake. */
  readonly baseUrl?: string
  /** Limit for one HTTP attempt. Default 10 seconds. */
  readonly timeout?: Duration.DurationInput
  /** Retries after the first attempt for 429, 5xx, timeouts and network errors. Default 3. */
  readonly retries?: number
  /** First backoff delay; it doubles on each retry. Default 500 ms. */
  readonly retryBaseDelay?: Duration.DurationInput
}

/** The error body Twilio sends with every non-2xx answer. */
interface TwilioErrorBody {
  readonly code?: number
  readonly message?: string
}

const isTransient = (error: SmsDeliveryFailed): boolean =>
  error.status === undefined || error.status === 429 || error.status >= 500

const readErrorBody = async (response: Response): Promise<TwilioErrorBody> => {
  try {
    const parsed: unknown = await response.json()
    return typeof parsed === "object" && parsed !== null ? (parsed as TwilioErrorBody) : {}
  } catch {
    return {}
  }
}

/**
 * An SmsSender that posts to the Twilio Messages REST API
 * (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP basic auth).
 *
 * Each attempt times out; 429, 5xx, timeouts and network errors are retried with exponential backoff;
 * other answers fail at once with `SmsDeliveryFailed` carrying Twilio's HTTP status and error code.
 */
export const make = (options: TwilioSmsOptions): Effect.Effect<Context.Tag.Service<SmsSender>> =>
  Effect.sync(() => {
    const baseUrl = (options.baseUrl ?? "https://api.twilio.com").replace(/\/+$/, "")
    const url = `${baseUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`
    const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const retrySchedule = Schedule.exponential(options.retryBaseDelay ?? Duration.millis(500)).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(options.retries ?? 3))
    )

    const attempt = (to: string, body: string): Effect.Effect<void, SmsDeliveryFailed> =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await fetch(url, {
            method: "POST",
            headers: {
              authorization,
              "content-type": "application/x-www-form-urlencoded",
              accept: "application/json"
            },
            body: new URLSearchParams({ To: to, From: options.from, Body: body }),
            signal
          })
          if (response.ok) {
            await response.body?.cancel()
            return undefined
          }
          const error = await readErrorBody(response)
          return new SmsDeliveryFailed({
            reason: error.message ?? `Twilio answered HTTP ${response.status}`,
            status: response.status,
            ...(error.code !== undefined ? { providerCode: error.code } : {})
          })
        },
        catch: (cause) => new SmsDeliveryFailed({ reason: `Twilio unreachable: ${String(cause)}` })
      }).pipe(
        Effect.flatMap((failure) => (failure === undefined ? Effect.void : Effect.fail(failure))),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new SmsDeliveryFailed({ reason: `Twilio did not answer within ${Duration.format(timeout)}` })
        })
      )

    return SmsSender.of({
      send: (sms) =>
        attempt(sms.to, sms.body).pipe(
          Effect.retry({ schedule: retrySchedule, while: isTransient }),
          Effect.tapError((error) =>
            Effect.logWarning("Twilio SMS failed").pipe(
              Effect.annotateLogs({
                to: maskPhone(sms.to),
                status: error.status,
                provider_code: error.providerCode,
                reason: maskPhonesIn(error.reason)
              })
            )
          )
        )
    })
  })

/** Layer of {@link make}. */
export const layer = (options: TwilioSmsOptions): Layer.Layer<SmsSender> => Layer.effect(SmsSender, make(options))
