import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { BuyRequest } from "../BuyRequest.js"
import type { Conversation, LockedConversation, Message, NewMessage } from "../Conversation.js"
import type { Deal } from "../Deal.js"
import type { DomainEvent } from "../Events.js"
import type { Offer } from "../Offer.js"
import type { OtpChallenge } from "../Otp.js"
import type { Rating } from "../Rating.js"
import type { Report } from "../Report.js"
import type { RatingTotals, SellerProfile } from "../SellerProfile.js"
import type { DeviceToken, Session, User } from "../User.js"

/*
 * Write-side repositories, one per aggregate. `lock` reads a row for update inside the current
 * transaction, so two racing transitions on it are serialised. Read models (list and detail views)
 * are queries of the adapter, not ports.
 *
 * Every id a repository is given is a UUID: the embedder decodes ids where they come in (paths, bodies,
 * frames, tokens) and answers a malformed one as it answers an unknown one, so an adapter need not guard
 * its store's uuid type against other strings.
 *
 * Lock order. A transaction that locks rows of several aggregates takes them in this order, so no two
 * wait on each other (deadlock):
 *   report -> deal -> seller profile -> buy request -> offers -> conversation
 * e.g. resolve: report, seller profile, the seller's pending offers; rate: deal, seller profile; offer:
 * seller profile (shared), request; accept: seller profile of the offer (shared), request, its offers;
 * withdraw and close: request, offers; message: conversation. A transition that skips a level keeps the
 * order of the rest. Rows of one kind are locked in one statement, or one row at a time.
 * Inserting a request, or changing its status, also updates the totals of requests kept per status,
 * category and city, in the same transaction: those are locked last, after everything above, until the
 * transaction ends.
 */

/** Runs an effect atomically: every repository call inside it commits together or not at all. */
export class Transactor extends Context.Tag("@talab/core/Transactor")<
  Transactor,
  { readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {}

/** Port: stores users (accounts, found by id or phone number). */
export class UserRepo extends Context.Tag("@talab/core/UserRepo")<
  UserRepo,
  {
    readonly findById: (id: string) => Effect.Effect<Option.Option<User>>
    readonly findByPhone: (phoneNumber: string) => Effect.Effect<Option.Option<User>>
    /** Inserts the user unless the phone number exists; answers the stored user either way. */
    readonly insertOrGet: (user: User) => Effect.Effect<User>
    /** Writes the profile (name, avatar, language); never `isAdmin`, which only an operator's grant sets. */
    readonly update: (user: User) => Effect.Effect<void>
  }
>() {}

/**
 * Port: stores sign-in sessions, what every access and refresh token is checked against; a revoked session signs its
 * tokens out.
 */
export class SessionRepo extends Context.Tag("@talab/core/SessionRepo")<
  SessionRepo,
  {
    readonly insert: (session: Session) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Session>>
    /** The session with its user, in one read: what every authenticated call checks. */
    readonly findWithUser: (
      id: string
    ) => Effect.Effect<Option.Option<{ readonly session: Session; readonly user: User }>>
    readonly revoke: (id: string, at: Date) => Effect.Effect<void>
    /** Ends the user's session `id` if it is live at `at`; answers whether it did (another user's: false). */
    readonly revokeOwned: (userId: string, id: string, at: Date) => Effect.Effect<boolean>
    /** Ends every live session of the user but `keepId`; answers the ids ended. */
    readonly revokeOthers: (userId: string, keepId: string, at: Date) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Whether the session is live at `at`; when it is, it cannot end (revoke waits) until the current
     * transaction does. What is written under it meanwhile is seen by whatever ends it.
     */
    readonly lockLive: (id: string, at: Date) => Effect.Effect<boolean>
    /** Records a use of the session at `at` (never moving `lastUsedAt` back). */
    readonly touch: (id: string, at: Date) => Effect.Effect<void>
  }
>() {}

/**
 * Port: stores the one code outstanding per phone number ({@link OtpChallenge}); `lock` reads it for update so racing
 * verifications count every attempt.
 */
export class OtpRepo extends Context.Tag("@talab/core/OtpRepo")<
  OtpRepo,
  {
    /** Replaces any code outstanding for the phone number. */
    readonly replace: (challenge: OtpChallenge) => Effect.Effect<void>
    readonly lock: (phoneNumber: string) => Effect.Effect<Option.Option<OtpChallenge>>
    readonly save: (challenge: OtpChallenge) => Effect.Effect<void>
  }
>() {}

/** Port: stores the push tokens of users' devices, each tied to the session that registered it. */
export class DeviceTokenRepo extends Context.Tag("@talab/core/DeviceTokenRepo")<
  DeviceTokenRepo,
  {
    /** Registers a push token; an existing one moves to this user and session. Answers the stored token. */
    readonly upsert: (token: DeviceToken) => Effect.Effect<DeviceToken>
    readonly removeForUser: (userId: string, pushToken: string) => Effect.Effect<void>
    readonly removeToken: (pushToken: string) => Effect.Effect<void>
    /** Removes the tokens registered under these sessions. */
    readonly removeForSessions: (sessionIds: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}

/** Port: stores seller profiles, at most one per user. */
export class SellerProfileRepo extends Context.Tag("@talab/core/SellerProfileRepo")<
  SellerProfileRepo,
  {
    /** Inserts the profile unless the user has one; answers whether it was inserted (two racing applies: one wins). */
    readonly insertIfAbsent: (profile: SellerProfile) => Effect.Effect<boolean>
    readonly findById: (id: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly findByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly lockByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    /** Reads the user's profile under a shared lock: it cannot change (a suspension waits) until the transaction ends. */
    readonly lockSharedByUserId: (userId: string) => Effect.Effect<Option.Option<SellerProfile>>
    readonly update: (profile: SellerProfile) => Effect.Effect<void>
  }
>() {}

/** Port: stores buy requests. */
export class RequestRepo extends Context.Tag("@talab/core/RequestRepo")<
  RequestRepo,
  {
    readonly insert: (request: BuyRequest) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<BuyRequest>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<BuyRequest>>
    readonly update: (request: BuyRequest) => Effect.Effect<void>
  }
>() {}

/** Port: stores offers; at most one pending offer per seller and request. */
export class OfferRepo extends Context.Tag("@talab/core/OfferRepo")<
  OfferRepo,
  {
    /**
     * Inserts a pending offer unless its seller already has one pending on the request (committed, or
     * committing meanwhile); answers whether it did. The check and the insert are one statement.
     */
    readonly insertUnlessPending: (offer: Offer) => Effect.Effect<boolean>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Offer>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Offer>>
    /** Every offer of a request, locked for update; lock the request first, so racing transitions queue on it. */
    readonly lockByRequest: (requestId: string) => Effect.Effect<ReadonlyArray<Offer>>
    /** A request's pending offers whose `valid_until` is at or before `now`, locked; lock the request first. */
    readonly lockLapsed: (requestId: string, now: Date) => Effect.Effect<ReadonlyArray<Offer>>
    /** A seller's pending offers on every request, locked for update; lock the seller's profile first. */
    readonly lockPendingBySeller: (sellerId: string) => Effect.Effect<ReadonlyArray<Offer>>
    readonly updateStatus: (offers: ReadonlyArray<Pick<Offer, "id" | "status">>) => Effect.Effect<void>
  }
>() {}

/** Port: stores deals. */
export class DealRepo extends Context.Tag("@talab/core/DealRepo")<
  DealRepo,
  {
    readonly insert: (deal: Deal) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Deal>>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Deal>>
    readonly update: (deal: Deal) => Effect.Effect<void>
  }
>() {}

/** Port: stores ratings, at most one per deal, and sums them per seller. */
export class RatingRepo extends Context.Tag("@talab/core/RatingRepo")<
  RatingRepo,
  {
    readonly insert: (rating: Rating) => Effect.Effect<void>
    readonly existsForDeal: (dealId: string) => Effect.Effect<boolean>
    /** The exact sum and count of a seller's ratings, what the seller's average is computed from. */
    readonly totalsForSeller: (sellerId: string) => Effect.Effect<RatingTotals>
  }
>() {}

/** Port: stores reports about users. */
export class ReportRepo extends Context.Tag("@talab/core/ReportRepo")<
  ReportRepo,
  {
    readonly insert: (report: Report) => Effect.Effect<void>
    readonly lock: (id: string) => Effect.Effect<Option.Option<Report>>
    readonly update: (report: Report) => Effect.Effect<void>
  }
>() {}

/** Port: stores conversations, one per offer. */
export class ConversationRepo extends Context.Tag("@talab/core/ConversationRepo")<
  ConversationRepo,
  {
    readonly insert: (conversation: Conversation) => Effect.Effect<void>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Conversation>>
    readonly findByOfferId: (offerId: string) => Effect.Effect<Option.Option<Conversation>>
    /**
     * Reads the conversation for update, so messages sent to it are stored one at a time, with its offer's
     * status (whether the message's recipient sees contact details) read in the same round trip.
     */
    readonly lock: (id: string) => Effect.Effect<Option.Option<LockedConversation>>
  }
>() {}

/** Port: stores conversations' messages, numbered by `seq`, and marks them read. */
export class MessageRepo extends Context.Tag("@talab/core/MessageRepo")<
  MessageRepo,
  {
    /**
     * Stores a message with the next `seq` of its conversation (call it with the conversation locked) and
     * moves the conversation's `lastMessageAt` to the message's time, never back; with a client id, a second
     * store by the same sender answers the first message, takes no seq and moves nothing.
     */
    readonly insertOnce: (
      message: NewMessage
    ) => Effect.Effect<{ readonly message: Message; readonly created: boolean }>
    /**
     * Marks the other party's unread messages as read (those up to `upToSeq` when given); answers how many.
     */
    readonly markRead: (conversationId: string, readerId: string, at: Date, upToSeq?: number) => Effect.Effect<number>
  }
>() {}

/** Appends domain events to the outbox, in the caller's transaction. */
export class EventOutbox extends Context.Tag("@talab/core/EventOutbox")<
  EventOutbox,
  { readonly append: (events: ReadonlyArray<DomainEvent>, at: Date) => Effect.Effect<void> }
>() {}
