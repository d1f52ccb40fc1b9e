import { SmsSender } from "@talab/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { maskPhone } from "../LogMasks.js"

export interface ConsoleSmsOptions {
  /**
   * Whether the line shows the message (and so the one-time code). True in development, where the console is
   * how one signs in; false in production (allowed only with ALLOW_CONSOLE_PROVIDERS=true), where codes stay
   * out of the log and SMS_OUTBOX_FILE is the place to read them.
   */
  readonly showText: boolean
}

/**
 * An SmsSender that sends nothing and says so in one warning line, the number masked. Never fails. When it shows
 * the text and the message carries a one-time code, the code follows on a line of its own (`OTP for +9665******67:
 * 482910`): the text is Arabic, and a code inside it is easy to misread in a terminal.
 */
const make = (options: ConsoleSmsOptions): Effect.Effect<Context.Tag.Service<SmsSender>> =>
  Effect.succeed(
    SmsSender.of({
      send: (sms) => {
        const to = maskPhone(sms.to)
        const notSent = Effect.logWarning("SMS not sent (SMS_PROVIDER=console)").pipe(
          Effect.annotateLogs(options.showText ? { to, text: sms.body } : { to })
        )
        return options.showText && sms.code !== undefined
          ? Effect.zipRight(notSent, Effect.logInfo(`OTP for ${to}: ${sms.code}`))
          : notSent
      }
    })
  )

/** Layer of {@link make}. */
export const layer = (options: ConsoleSmsOptions): Layer.Layer<SmsSender> => Layer.effect(SmsSender, make(options))
