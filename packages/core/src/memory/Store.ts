import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { OtpChallenge } from "../auth/Otp.js"
import type { Session } from "../auth/Session.js"
import type { Conversation, Message } from "../chat/Conversation.js"
import type { Deal } from "../deals/Deal.js"
import type { Image } from "../images/Image.js"
import type { Offer, OfferCounter, OfferEvent } from "../offers/Offer.js"
import type { Rating } from "../ratings/Rating.js"
import type { Report } from "../reports/Report.js"
import type { BuyRequest } from "../requests/BuyRequest.js"
import type { SellerProfile } from "../sellers/SellerProfile.js"
import type { DomainEvent } from "../shared/Events.js"
import type { DeviceToken, User } from "../users/User.js"

/** A domain event as the in-memory outbox keeps it: the event and the time it was appended at. */
export interface StoredEvent {
  readonly event: DomainEvent
  readonly at: Date
}

/**
 * Everything the in-memory adapters store, as persistent (immutable) maps keyed by id, so a transaction's
 * working copy and a savepoint are just the value they started from.
 */
export interface Tables {
  readonly users: HashMap.HashMap<string, User>
  readonly sessions: HashMap.HashMap<string, Session>
  /** Keyed by phone number: one outstanding code per number. */
  readonly otpChallenges: HashMap.HashMap<string, OtpChallenge>
  /** Keyed by push token: a token is registered once. */
  readonly deviceTokens: HashMap.HashMap<string, DeviceToken>
  readonly sellerProfiles: HashMap.HashMap<string, SellerProfile>
  readonly requests: HashMap.HashMap<string, BuyRequest>
  readonly offers: HashMap.HashMap<string, Offer>
  readonly offerCounters: HashMap.HashMap<string, OfferCounter>
  /** Offers' histories, oldest first. */
  readonly offerEvents: Chunk.Chunk<OfferEvent>
  readonly deals: HashMap.HashMap<string, Deal>
  readonly ratings: HashMap.HashMap<string, Rating>
  readonly reports: HashMap.HashMap<string, Report>
  readonly conversations: HashMap.HashMap<string, Conversation>
  readonly messages: HashMap.HashMap<string, Message>
  readonly images: HashMap.HashMap<string, Image>
  /** The outbox, oldest first. */
  readonly outbox: Chunk.Chunk<StoredEvent>
}

/** The tables of a store nothing was written to. */
export const emptyTables: Tables = {
  users: HashMap.empty(),
  sessions: HashMap.empty(),
  otpChallenges: HashMap.empty(),
  deviceTokens: HashMap.empty(),
  sellerProfiles: HashMap.empty(),
  requests: HashMap.empty(),
  offers: HashMap.empty(),
  offerCounters: HashMap.empty(),
  offerEvents: Chunk.empty(),
  deals: HashMap.empty(),
  ratings: HashMap.empty(),
  reports: HashMap.empty(),
  conversations: HashMap.empty(),
  messages: HashMap.empty(),
  images: HashMap.empty(),
  outbox: Chunk.empty()
}

/**
 * A write that breaks a unique rule of the store (the same rules, under the same names, as the SQL schema's
 * constraints). Port signatures carry no infrastructure errors, so the adapters raise it as a defect, as the SQL
 * adapters do with the database's refusal.
 */
export class UniqueViolation extends Data.TaggedError("UniqueViolation")<{ readonly constraint: string }> {
  override get message() {
    return `in-memory store: unique rule ${this.constraint} violated`
  }
}

/**
 * The in-memory database behind every adapter of {@link InMemoryPorts}: committed tables, and one transaction
 * at a time.
 *
 * - `read` sees the current transaction's writes inside one, the committed tables outside (it never waits).
 * - `write` (and every `lock…` of the repositories) changes the current transaction's working copy inside one;
 *   outside, it is a transaction of its own, so it waits while another transaction runs.
 * - `transaction` runs one effect on a working copy and commits it only when the effect succeeds: a failure, a
 *   defect or an interruption leaves the committed tables as they were. Transactions take one permit each, so
 *   they never interleave (the in-memory form of the row locks the SQL adapters take); a nested one joins the
 *   outer one, and undoes only its own writes when it fails (a savepoint).
 *
 * Fibers forked inside a transaction run in it. A transaction that waits on a fiber forked outside it, which
 * itself writes, waits forever: keep transactions to the work of one use case.
 */
export class MemoryStore extends Context.Tag("@talab/core/MemoryStore")<
  MemoryStore,
  {
    readonly read: <A>(query: (tables: Tables) => A) => Effect.Effect<A>
    readonly write: <A>(change: (tables: Tables) => readonly [A, Tables]) => Effect.Effect<A>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** The committed tables, for read models and assertions. */
    readonly committed: Effect.Effect<Tables>
  }
>() {}

/** Makes an empty {@link MemoryStore}; each call is a database of its own. */
export const makeMemoryStore: Effect.Effect<MemoryStore["Type"]> = Effect.gen(function* () {
  const committed = yield* Ref.make(emptyTables)
  const permit = yield* Effect.makeSemaphore(1)
  // Per store, so that two stores in one process never see each other's transactions. A fiber joined after its
  // transaction ended must not carry that transaction back into its parent.
  const current = FiberRef.unsafeMake<Ref.Ref<Tables> | undefined>(undefined, { join: (parent) => parent })

  const alone = <A>(change: (tables: Tables) => readonly [A, Tables]) =>
    permit.withPermits(1)(Ref.modify(committed, change))

  const savepoint = <A, E, R>(working: Ref.Ref<Tables>, effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Ref.get(working), (saved) =>
      Effect.onExit(effect, (exit) => (Exit.isSuccess(exit) ? Effect.void : Ref.set(working, saved)))
    )

  const outermost = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    permit.withPermits(1)(
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const working = yield* Ref.make(yield* Ref.get(committed))
          const result = yield* restore(Effect.locally(effect, current, working))
          yield* Ref.set(committed, yield* Ref.get(working))
          return result
        })
      )
    )

  return MemoryStore.of({
    read: (query) =>
      Effect.flatMap(FiberRef.get(current), (working) => Effect.map(Ref.get(working ?? committed), query)),
    write: (change) =>
      Effect.flatMap(FiberRef.get(current), (working) =>
        working === undefined ? alone(change) : Ref.modify(working, change)
      ),
    transaction: (effect) =>
      Effect.flatMap(FiberRef.get(current), (working) =>
        working === undefined ? outermost(effect) : savepoint(working, effect)
      ),
    committed: Ref.get(committed)
  })
})

/** An empty {@link MemoryStore}; each build of the layer is a database of its own. */
export const MemoryStoreLayer: Layer.Layer<MemoryStore> = Layer.effect(MemoryStore, makeMemoryStore)
