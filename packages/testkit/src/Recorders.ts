import { type Push, PushOutcome, PushSender, type Sms, SmsSender } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Every SMS the marketplace sent, newest last. */
export class SmsRecorder {
  /** The SMS sent so far (to, body, code), oldest first. */
  readonly sent: Array<Sms & { readonly sentAt: Date }> = []
  /** The last one-time code sent to a phone number (in E.164), if any. */
  lastCode(phoneNumber: string): string | undefined {
    return this.sent.filter((s) => s.to === phoneNumber && s.code !== undefined).at(-1)?.code
  }
  /** The `SmsSender` the test server is built with. */
  readonly layer = Layer.succeed(SmsSender, {
    send: (sms) => Effect.sync(() => void this.sent.push({ ...sms, sentAt: new Date() }))
  })
}

/** Every push the marketplace delivered, newest last; tokens listed in `unregistered` are refused. */
export class PushRecorder {
  /** The pushes delivered so far (user, platform, token, type, title, body, data), oldest first. */
  readonly delivered: Array<Push & { readonly sentAt: Date }> = []
  /** Device tokens the "provider" reports as unregistered: add one to test that the server deletes it. */
  readonly unregistered = new Set<string>()
  /** The pushes delivered to one user. */
  to(userId: string) {
    return this.delivered.filter((p) => p.userId === userId)
  }
  /**
   * The first push (already delivered or still to come) that matches; pushes leave in the background,
   * after the request that caused them has answered. Rejects after `timeoutMs` (default 5 s).
   *
   * @example
   * const push = await server.pushes.waitFor((p) => p.userId === buyerId && p.type === "offer_created")
   */
  async waitFor(matches: (push: Push) => boolean, timeoutMs = 5_000): Promise<Push & { readonly sentAt: Date }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.delivered.find(matches)
      if (found) return found
      if (Date.now() >= deadline) throw new Error(`No matching push was delivered within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  /** The `PushSender` the test server is built with. */
  readonly layer = Layer.succeed(PushSender, {
    send: (push) =>
      Effect.sync(() => {
        if (this.unregistered.has(push.pushToken)) return PushOutcome.Unregistered()
        this.delivered.push({ ...push, sentAt: new Date() })
        return PushOutcome.Delivered()
      })
  })
}
