import { type Push, PushOutcome, PushSender, type Sms, SmsSender } from "@talab/core"
import { Effect, Layer } from "effect"

/** Every SMS the marketplace sent, newest last. */
export class SmsRecorder {
  readonly sent: Array<Sms & { readonly sentAt: Date }> = []
  /** The last one-time code sent to a phone number (in E.164), if any. */
  lastCode(phoneNumber: string): string | undefined {
    return this.sent.filter((s) => s.to === phoneNumber && s.code !== undefined).at(-1)?.code
  }
  readonly layer = Layer.succeed(SmsSender, {
    send: (sms) => Effect.sync(() => void this.sent.push({ ...sms, sentAt: new Date() }))
  })
}

/** Every push the marketplace delivered, newest last; tokens listed in `unregistered` are refused. */
export class PushRecorder {
  readonly delivered: Array<Push & { readonly sentAt: Date }> = []
  readonly unregistered = new Set<string>()
  /** The pushes delivered to one user. */
  to(userId: string) {
    return this.delivered.filter((p) => p.userId === userId)
  }
  readonly layer = Layer.succeed(PushSender, {
    send: (push) =>
      Effect.sync(() => {
        if (this.unregistered.has(push.pushToken)) return PushOutcome.Unregistered()
        this.delivered.push({ ...push, sentAt: new Date() })
        return PushOutcome.Delivered()
      })
  })
}
