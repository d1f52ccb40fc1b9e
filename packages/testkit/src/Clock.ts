import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * A real clock that can be moved forward: time flows as usual plus an offset the test controls, so
 * timers keep working while tokens expire, OTP codes age and rate-limit windows pass on demand.
 */
export class AdjustableClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  private offsetMs = 0
  private readonly base = Clock.make()
  private readonly listeners: Array<() => void> = []

  /** Moves the clock forward; the test server's expiry job then runs a pass at once. */
  advance(duration: Duration.DurationInput) {
    this.offsetMs += Duration.toMillis(duration)
    for (const listener of this.listeners) listener()
  }
  /** Calls `listener` after every `advance`. */
  onAdvance(listener: () => void) {
    this.listeners.push(listener)
  }
  /** The clock's current time. */
  now() {
    return new Date(this.unsafeCurrentTimeMillis())
  }
  unsafeCurrentTimeMillis() {
    return Date.now() + this.offsetMs
  }
  unsafeCurrentTimeNanos() {
    return BigInt(this.unsafeCurrentTimeMillis()) * 1_000_000n
  }
  readonly currentTimeMillis = Effect.sync(() => this.unsafeCurrentTimeMillis())
  readonly currentTimeNanos = Effect.sync(() => this.unsafeCurrentTimeNanos())
  sleep(duration: Duration.Duration) {
    return this.base.sleep(duration)
  }
}
