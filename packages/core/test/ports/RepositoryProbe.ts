import { Context, type Effect } from "effect"
import type { DeviceToken } from "../../src/index.js"

/**
 * What the contract reads back that no port does: the write side never reads device tokens or the outbox (the
 * adapters' read models and dispatchers do), so each adapter family says how to look at what it stored.
 */
export class RepositoryProbe extends Context.Tag("test/RepositoryProbe")<
  RepositoryProbe,
  {
    /** The user's device tokens, oldest first (then by id). */
    readonly deviceTokensOf: (userId: string) => Effect.Effect<ReadonlyArray<DeviceToken>>
    /** The outbox's events whose payload has `key` equal to `value`, as type, payload (the event less its tag) and time. */
    readonly eventsWhere: (
      key: string,
      value: string
    ) => Effect.Effect<ReadonlyArray<{ readonly type: string; readonly payload: unknown; readonly createdAt: Date }>>
  }
>() {}
