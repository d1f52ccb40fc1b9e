import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"

export interface NotificationWakeupService {
  /** Says that notifications were just committed, so a waiting dispatcher looks at once. */
  readonly signal: Effect.Effect<void>
  /** Waits for the next signal; signals given while nobody waited count as one. */
  readonly next: Effect.Effect<void>
}

/**
 * The in-process nudge from the writers of notifications to the dispatcher, so delivery does not wait for the
 * next poll. Without a dispatcher in the process nobody listens and signalling does nothing.
 */
export class NotificationWakeup extends Context.Reference<NotificationWakeup>()("Notifications/Wakeup", {
  defaultValue: (): NotificationWakeupService => ({ signal: Effect.void, next: Effect.never })
}) {
  static readonly make: Effect.Effect<NotificationWakeupService> = Effect.map(Queue.sliding<void>(1), (queue) => ({
    signal: Queue.offer(queue, undefined).pipe(Effect.asVoid),
    next: Queue.take(queue)
  }))

  /** One shared wakeup for the outbox that writes notifications and the dispatcher that delivers them. */
  static readonly layer: Layer.Layer<NotificationWakeup> = Layer.effect(NotificationWakeup, NotificationWakeup.make)
}
