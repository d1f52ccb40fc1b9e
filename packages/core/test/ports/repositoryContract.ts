import { randomUUID } from "node:crypto"
import { expect, layer, type Vitest } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, type Layer, Option } from "effect"
import {
  ConversationRepo,
  DealRepo,
  DeviceTokenRepo,
  DomainEvent,
  EventOutbox,
  MessageRepo,
  type OfferEvent,
  OfferRepo,
  OtpRepo,
  RatingRepo,
  type Report,
  ReportRepo,
  RequestRepo,
  SellerProfileRepo,
  SessionRepo,
  Transactor,
  UserRepo
} from "../../src/index.js"
import { defectOf } from "./defects.js"
import {
  aConversation,
  aMessage,
  anOffer,
  aPhoneNumber,
  aRating,
  aRequest,
  aSellerProfile,
  at,
  aUser,
  seedDeal,
  seedOffer,
  seedRequest
} from "./fixtures.js"
import { RepositoryProbe } from "./RepositoryProbe.js"

export { RepositoryProbe } from "./RepositoryProbe.js"

/** Every port the contract runs against, and its probe. */
export type PortsUnderTest =
  | Transactor
  | UserRepo
  | SessionRepo
  | OtpRepo
  | DeviceTokenRepo
  | SellerProfileRepo
  | RequestRepo
  | OfferRepo
  | DealRepo
  | RatingRepo
  | ReportRepo
  | ConversationRepo
  | MessageRepo
  | EventOutbox
  | RepositoryProbe

const some = <A>(option: Option.Option<A>) => {
  expect(Option.isSome(option), "expected a row").toBe(true)
  return Option.getOrThrow(option)
}

/**
 * Runs a write that breaks a unique rule and answers the rule's name: the SQL adapters die with the database's
 * error (the constraint in its `cause`), the in-memory ones with `UniqueViolation` (the same names).
 */
export const violatedUniqueRule = (effect: Effect.Effect<unknown>) =>
  Effect.map(defectOf(effect), (defect) => {
    const { cause, constraint } = defect as { cause?: { constraint?: string }; constraint?: string }
    return constraint ?? cause?.constraint
  })

/** The seller's pending offers on one request, read through the ports. */
const pendingOfSeller = (requestId: string, sellerId: string) =>
  Effect.flatMap(OfferRepo, (offers) =>
    Effect.map(offers.lockPendingBySeller(sellerId), (pending) => pending.filter((o) => o.requestId === requestId))
  )

/**
 * What every adapter of the repository ports must do, whatever stores the rows: the tests, registered on an `it`
 * whose layer provides the ports and a {@link RepositoryProbe}. The database is shared by the whole suite (each
 * test makes rows of its own). Adapters with more to check (the SQL schema's own rules) add their tests beside.
 */
export const repositoryPortTests = (it: Vitest.MethodsNonLive<PortsUnderTest, true>) => {
  it.effect("users: insertOrGet keeps the first user of a phone number; update and lookups round-trip", () =>
    Effect.gen(function* () {
      const users = yield* UserRepo
      const first = aUser({ isAdmin: true })
      expect(yield* users.insertOrGet(first)).toEqual(first)
      const again = yield* users.insertOrGet(aUser({ phoneNumber: first.phoneNumber }))
      expect(again).toEqual(first)

      const avatarUrl = "http://localhost:3000/avatars/a.webp"
      expect(yield* users.replaceAvatar(first.id, avatarUrl)).toEqual(Option.some(first.avatarUrl))
      const renamed = { ...first, name: "Sara", language: "en" as const, avatarUrl }
      expect(yield* users.updateProfile(first.id, { name: "Sara", language: "en" })).toEqual(Option.some(renamed))
      expect(yield* users.findById(first.id)).toEqual(Option.some(renamed))
      expect(yield* users.findByPhone(first.phoneNumber)).toEqual(Option.some(renamed))
      expect(yield* users.findById(randomUUID())).toEqual(Option.none())

      // Each writes its own columns only, and answers what it replaced.
      expect(yield* users.updateProfile(first.id, { language: "ar" })).toEqual(
        Option.some({ ...renamed, language: "ar" })
      )
      expect(yield* users.replaceAvatar(first.id, `${avatarUrl}2`)).toEqual(Option.some(avatarUrl))
      expect(yield* users.findById(first.id)).toEqual(
        Option.some({ ...renamed, language: "ar", avatarUrl: `${avatarUrl}2` })
      )
      expect(yield* users.updateProfile(randomUUID(), { name: "Nobody" })).toEqual(Option.none())
      expect(yield* users.replaceAvatar(randomUUID(), avatarUrl)).toEqual(Option.none())
    })
  )

  it.effect("users: insertOrGet waiting on another transaction's insert of the number answers that user", () =>
    Effect.gen(function* () {
      const { transaction } = yield* Transactor
      const users = yield* UserRepo
      const winner = aUser()
      const inserted = yield* Deferred.make<void>()
      // The first insert stays uncommitted while the second starts, so the second's snapshot predates it.
      const first = yield* Effect.fork(
        transaction(
          users
            .insertOrGet(winner)
            .pipe(Effect.zipLeft(Deferred.succeed(inserted, undefined)), Effect.zipLeft(Effect.sleep(300)))
        )
      )
      yield* Deferred.await(inserted)
      const second = yield* users.insertOrGet(aUser({ phoneNumber: winner.phoneNumber }))
      expect(yield* Fiber.join(first)).toEqual(winner)
      expect(second).toEqual(winner)
    })
  )

  it.effect("sessions: round-trip (alone and with their user), and the first revocation is kept", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionRepo
      const user = yield* (yield* UserRepo).insertOrGet(aUser())
      const session = {
        id: randomUUID(),
        userId: user.id,
        createdAt: at("2025-02-01T00:00:00.000Z"),
        expiresAt: at("2025-03-03T00:00:00.000Z"),
        revokedAt: null,
        lastUsedAt: at("2025-02-01T00:00:00.000Z"),
        device: { platform: "ios" as const, name: "Sara's iPhone" },
        ipPrefix: "203.0.113.0/24"
      }
      yield* sessions.insert(session)
      yield* sessions.insert({ ...session, id: randomUUID(), device: null, ipPrefix: null })
      expect(yield* sessions.findById(session.id)).toEqual(Option.some(session))
      expect(yield* sessions.findWithUser(session.id)).toEqual(Option.some({ session, user }))
      expect(yield* sessions.findWithUser(randomUUID())).toEqual(Option.none())

      yield* sessions.touch(session.id, at("2025-02-01T12:00:00.000Z"))
      yield* sessions.touch(session.id, at("2025-02-01T06:00:00.000Z"))
      expect(some(yield* sessions.findById(session.id)).lastUsedAt).toEqual(at("2025-02-01T12:00:00.000Z"))

      yield* sessions.revoke(session.id, at("2025-02-02T00:00:00.000Z"))
      yield* sessions.revoke(session.id, at("2025-02-05T00:00:00.000Z"))
      expect(some(yield* sessions.findById(session.id)).revokedAt).toEqual(at("2025-02-02T00:00:00.000Z"))
      expect(some(yield* sessions.findWithUser(session.id)).session.revokedAt).toEqual(at("2025-02-02T00:00:00.000Z"))
    })
  )

  it.effect("sessions: a user ends only their own live sessions, one or all but the current", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionRepo
      const users = yield* UserRepo
      const alice = yield* users.insertOrGet(aUser())
      const bob = yield* users.insertOrGet(aUser())
      const t = at("2025-02-01T00:00:00.000Z")
      const now = at("2025-02-10T00:00:00.000Z")
      const [current, other, expired, bobs] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
      for (const [id, userId, expiresAt] of [
        [current, alice.id, at("2025-03-01T00:00:00.000Z")],
        [other, alice.id, at("2025-03-01T00:00:00.000Z")],
        [expired, alice.id, at("2025-02-05T00:00:00.000Z")],
        [bobs, bob.id, at("2025-03-01T00:00:00.000Z")]
      ] as const)
        yield* sessions.insert({
          id,
          userId,
          createdAt: t,
          expiresAt,
          revokedAt: null,
          lastUsedAt: t,
          device: null,
          ipPrefix: null
        })
      expect(yield* sessions.lockLive(current, now)).toBe(true)
      expect(yield* sessions.lockLive(expired, now)).toBe(false)
      expect(yield* sessions.lockLive(randomUUID(), now)).toBe(false)
      expect(yield* sessions.revokeOwned(alice.id, bobs, now)).toBe(false)
      expect(yield* sessions.revokeOwned(alice.id, expired, now)).toBe(false)
      expect(yield* sessions.revokeOwned(alice.id, randomUUID(), now)).toBe(false)
      expect(yield* sessions.revokeOthers(alice.id, current, now)).toEqual([other])
      expect(yield* sessions.revokeOwned(alice.id, other, now)).toBe(false)
      expect(some(yield* sessions.findById(current)).revokedAt).toBeNull()
      expect(some(yield* sessions.findById(bobs)).revokedAt).toBeNull()
      expect(yield* sessions.revokeOwned(alice.id, current, now)).toBe(true)
      expect(some(yield* sessions.findById(current)).revokedAt).toEqual(now)
      expect(yield* sessions.lockLive(current, now)).toBe(false)
    })
  )

  it.effect("otp: replace starts over and save keeps attempts", () =>
    Effect.gen(function* () {
      const otps = yield* OtpRepo
      const phoneNumber = aPhoneNumber()
      const issued = {
        phoneNumber,
        codeHash: "hash-1",
        expiresAt: at("2025-02-01T00:10:00.000Z"),
        attempts: 0,
        consumedAt: null
      }
      yield* otps.replace(issued)
      expect(yield* otps.lock(phoneNumber)).toEqual(Option.some(issued))

      const used = { ...issued, attempts: 3, consumedAt: at("2025-02-01T00:01:00.000Z") }
      yield* otps.save(used)
      expect(yield* otps.lock(phoneNumber)).toEqual(Option.some(used))

      const reissued = { ...issued, codeHash: "hash-2", expiresAt: at("2025-02-01T01:10:00.000Z") }
      yield* otps.replace(reissued)
      expect(yield* otps.lock(phoneNumber)).toEqual(Option.some(reissued))
      expect(yield* otps.lock(aPhoneNumber())).toEqual(Option.none())
    })
  )

  it.effect("otp: issueUnlessLive keeps a live code and replaces one used, used up or expired", () =>
    Effect.gen(function* () {
      const otps = yield* OtpRepo
      const phoneNumber = aPhoneNumber()
      const now = at("2025-02-01T00:00:00.000Z")
      const live = {
        phoneNumber,
        codeHash: "hash-1",
        expiresAt: at("2025-02-01T00:10:00.000Z"),
        attempts: 2,
        consumedAt: null
      }
      const next = { ...live, codeHash: "hash-2", expiresAt: at("2025-02-01T00:20:00.000Z"), attempts: 0 }
      expect(yield* otps.issueUnlessLive(live, now)).toEqual(live)
      expect(yield* otps.issueUnlessLive(next, now)).toEqual(live)
      expect(yield* otps.lock(phoneNumber)).toEqual(Option.some(live))
      for (const spent of [
        { ...live, consumedAt: now },
        { ...live, attempts: 3 },
        { ...live, expiresAt: now }
      ]) {
        yield* otps.save(spent)
        expect(yield* otps.issueUnlessLive(next, now)).toEqual(next)
        expect(yield* otps.lock(phoneNumber)).toEqual(Option.some(next))
        yield* otps.save(live)
      }
    })
  )

  it.effect("device tokens: upsert moves an existing token to the new user; removal is per user or per token", () =>
    Effect.gen(function* () {
      const tokens = yield* DeviceTokenRepo
      const probe = yield* RepositoryProbe
      const users = yield* UserRepo
      const alice = yield* users.insertOrGet(aUser())
      const bob = yield* users.insertOrGet(aUser())
      const pushToken = `token-${randomUUID()}`
      const registered = {
        id: randomUUID(),
        userId: alice.id,
        sessionId: null,
        platform: "ios" as const,
        pushToken,
        createdAt: at("2025-02-01T00:00:00.000Z")
      }
      expect(yield* tokens.upsert(registered)).toEqual(registered)

      const moved = yield* tokens.upsert({ ...registered, id: randomUUID(), userId: bob.id, platform: "android" })
      expect(moved).toEqual({ ...registered, userId: bob.id, platform: "android" })
      expect(yield* probe.deviceTokensOf(alice.id)).toEqual([])
      expect(yield* probe.deviceTokensOf(bob.id)).toEqual([moved])

      yield* tokens.removeForUser(alice.id, pushToken)
      expect(yield* probe.deviceTokensOf(bob.id)).toHaveLength(1)
      yield* tokens.removeForUser(bob.id, pushToken)
      expect(yield* probe.deviceTokensOf(bob.id)).toEqual([])

      yield* tokens.upsert({ ...registered, id: randomUUID(), pushToken: `${pushToken}-2` })
      yield* tokens.removeToken(`${pushToken}-2`)
      expect(yield* probe.deviceTokensOf(alice.id)).toEqual([])
    })
  )

  it.effect("device tokens: belong to the session that registered them last, and go with it", () =>
    Effect.gen(function* () {
      const tokens = yield* DeviceTokenRepo
      const probe = yield* RepositoryProbe
      const sessions = yield* SessionRepo
      const alice = yield* (yield* UserRepo).insertOrGet(aUser())
      const t = at("2025-02-01T00:00:00.000Z")
      const [first, second] = [randomUUID(), randomUUID()]
      for (const id of [first, second])
        yield* sessions.insert({
          id,
          userId: alice.id,
          createdAt: t,
          expiresAt: at("2025-03-01T00:00:00.000Z"),
          revokedAt: null,
          lastUsedAt: t,
          device: null,
          ipPrefix: null
        })
      const token = (pushToken: string, sessionId: string | null) => ({
        id: randomUUID(),
        userId: alice.id,
        sessionId,
        platform: "android" as const,
        pushToken,
        createdAt: t
      })
      const shared = `token-${randomUUID()}`
      yield* tokens.upsert(token(shared, first))
      expect((yield* tokens.upsert(token(shared, second))).sessionId).toBe(second)
      yield* tokens.upsert(token(`${shared}-first`, first))
      yield* tokens.upsert(token(`${shared}-none`, null))
      yield* tokens.removeForSessions([first])
      yield* tokens.removeForSessions([])
      expect((yield* probe.deviceTokensOf(alice.id)).map((row) => row.pushToken).sort()).toEqual([
        shared,
        `${shared}-none`
      ])
      yield* tokens.removeForSessions([second])
      expect((yield* probe.deviceTokensOf(alice.id)).map((row) => row.pushToken)).toEqual([`${shared}-none`])
    })
  )

  it.effect("seller profiles: round-trip with rating numbers", () =>
    Effect.gen(function* () {
      const profiles = yield* SellerProfileRepo
      const user = yield* (yield* UserRepo).insertOrGet(aUser())
      const profile = aSellerProfile(user.id)
      expect(yield* profiles.insertIfAbsent(profile)).toBe(true)
      expect(yield* profiles.findById(profile.id)).toEqual(Option.some(profile))
      expect(yield* profiles.findByUserId(user.id)).toEqual(Option.some(profile))
      expect(yield* profiles.lock(profile.id)).toEqual(Option.some(profile))

      const rated = {
        ...profile,
        status: "approved" as const,
        approvedAt: at("2025-02-01T00:00:00.000Z"),
        ratingAvg: 4.67,
        ratingCount: 3
      }
      yield* profiles.update(rated)
      const stored = some(yield* profiles.lockByUserId(user.id))
      expect(stored).toEqual(rated)
      expect(typeof stored.ratingAvg).toBe("number")

      expect(yield* profiles.findById(randomUUID())).toEqual(Option.none())
    })
  )

  it.effect(
    "seller profiles: lockSharedByUserId reads the profile and holds an update until its transaction ends",
    () =>
      Effect.gen(function* () {
        const { transaction } = yield* Transactor
        const profiles = yield* SellerProfileRepo
        const user = yield* (yield* UserRepo).insertOrGet(aUser())
        const profile = aSellerProfile(user.id, { status: "approved", approvedAt: at("2025-01-02T12:00:00.000Z") })
        yield* profiles.insertIfAbsent(profile)
        expect(yield* transaction(profiles.lockSharedByUserId(user.id))).toEqual(Option.some(profile))
        expect(yield* profiles.lockSharedByUserId(randomUUID())).toEqual(Option.none())
        expect(yield* profiles.lockSharedByUserId(randomUUID())).toEqual(Option.none())

        const readerHoldsLock = yield* Deferred.make<void>()
        const holdMillis = 400
        const reader = yield* Effect.fork(
          transaction(
            Effect.gen(function* () {
              const seen = some(yield* profiles.lockSharedByUserId(user.id))
              yield* Deferred.succeed(readerHoldsLock, undefined)
              yield* Effect.sleep(holdMillis)
              return seen.status
            })
          )
        )
        yield* Deferred.await(readerHoldsLock)
        const suspendStartedAt = Date.now()
        yield* transaction(
          Effect.gen(function* () {
            const locked = some(yield* profiles.lockByUserId(user.id))
            yield* profiles.update({ ...locked, status: "suspended" })
          })
        )
        expect(Date.now() - suspendStartedAt).toBeGreaterThanOrEqual(holdMillis - 50)
        expect(yield* Fiber.join(reader)).toBe("approved")
        expect(some(yield* profiles.findByUserId(user.id)).status).toBe("suspended")
      })
  )

  it.effect("seller profiles: insertIfAbsent inserts once per user and answers whether it did", () =>
    Effect.gen(function* () {
      const profiles = yield* SellerProfileRepo
      const user = yield* (yield* UserRepo).insertOrGet(aUser())
      const first = aSellerProfile(user.id)
      expect(yield* profiles.insertIfAbsent(first)).toBe(true)
      expect(yield* profiles.insertIfAbsent(aSellerProfile(user.id, { businessName: "Second" }))).toBe(false)
      expect(yield* profiles.findByUserId(user.id)).toEqual(Option.some(first))
    })
  )

  it.effect("requests: budgets come back as numbers, and close round-trips", () =>
    Effect.gen(function* () {
      const requests = yield* RequestRepo
      const buyer = yield* (yield* UserRepo).insertOrGet(aUser())
      const request = aRequest(buyer.id, { budgetMin: 0.01, budgetMax: 1_000_000_000 })
      yield* requests.insert(request)
      const stored = some(yield* requests.findById(request.id))
      expect(stored).toEqual(request)
      expect(typeof stored.budgetMin).toBe("number")

      const closed = {
        ...request,
        status: "closed" as const,
        closedAt: at("2025-02-01T00:00:00.000Z"),
        offerCount: 2
      }
      yield* requests.update(closed)
      expect(yield* requests.lock(request.id)).toEqual(Option.some(closed))
    })
  )

  it.effect("requests: insertAll stores every request posted together, or none when one breaks a rule", () =>
    Effect.gen(function* () {
      const requests = yield* RequestRepo
      const buyer = yield* (yield* UserRepo).insertOrGet(aUser())
      const [first, second] = [aRequest(buyer.id), aRequest(buyer.id, { productModel: "Galaxy S24" })]
      yield* requests.insertAll([first, second])
      expect(yield* requests.findById(first.id)).toEqual(Option.some(first))
      expect(yield* requests.findById(second.id)).toEqual(Option.some(second))
      const fine = aRequest(buyer.id)
      expect(yield* violatedUniqueRule(requests.insertAll([fine, { ...aRequest(buyer.id), id: first.id }]))).toBe(
        "buy_requests_pkey"
      )
      expect(yield* requests.findById(fine.id)).toEqual(Option.none())
    })
  )

  it.effect("offers: round-trip, newest first per request, pending check and batch status change", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const { request, seller } = yield* seedRequest
      const other = yield* (yield* UserRepo).insertOrGet(aUser())
      const older = anOffer(request.id, seller.id, { createdAt: at("2025-01-04T09:00:00.000Z") })
      const newer = anOffer(request.id, other.id, { createdAt: at("2025-01-04T10:00:00.000Z"), price: 1999.9 })
      expect(yield* offers.insertUnlessPending(older)).toBe(true)
      expect(yield* offers.insertUnlessPending(newer)).toBe(true)

      expect(yield* offers.findById(older.id)).toEqual(Option.some(older))
      expect(yield* offers.lock(newer.id)).toEqual(Option.some(newer))
      expect(yield* offers.lockByRequest(request.id)).toEqual([newer, older])
      expect(yield* pendingOfSeller(request.id, seller.id)).toEqual([older])

      yield* offers.updateStatus([
        { id: older.id, status: "withdrawn" },
        { id: newer.id, status: "rejected" }
      ])
      expect((yield* offers.lockByRequest(request.id)).map((o) => o.status)).toEqual(["rejected", "withdrawn"])
      expect(yield* pendingOfSeller(request.id, seller.id)).toEqual([])
      yield* offers.updateStatus([])
    })
  )

  it.effect("offers: a revision, counters and the history, with the statuses that end an offer in it", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const { offer } = yield* seedOffer
      const revised = { ...offer, price: 1850.5, availability: "tomorrow", conditionNotes: null, revision: 2 }
      yield* offers.revise(revised)
      expect(yield* offers.findById(offer.id)).toEqual(Option.some(revised))

      expect(yield* offers.countCounters(offer.id)).toBe(0)
      const counter = {
        id: randomUUID(),
        offerId: offer.id,
        price: 1700.25,
        note: "with the case?",
        revision: 2,
        createdAt: at("2025-01-04T12:00:00.000Z")
      }
      yield* offers.insertCounter(counter)
      yield* offers.insertCounter({ ...counter, id: randomUUID(), note: null })
      expect(yield* offers.countCounters(offer.id)).toBe(2)

      const line = (type: OfferEvent["type"], price: number, revision: number, iso: string): OfferEvent => ({
        offerId: offer.id,
        type,
        price,
        by: type === "countered" || type === "accepted" ? "buyer" : "seller",
        revision,
        createdAt: at(iso)
      })
      yield* offers.appendHistory([line("created", offer.price, 1, "2025-01-04T10:00:00.000Z")])
      yield* offers.appendHistory([line("revised", 1850.5, 2, "2025-01-04T11:00:00.000Z")])
      yield* offers.appendHistory([line("countered", 1700.25, 2, "2025-01-04T12:00:00.000Z")])
      yield* offers.appendHistory([])
      yield* offers.updateStatus([{ id: offer.id, status: "accepted" }], at("2025-01-04T13:00:00.000Z"))
      expect(yield* offers.history(offer.id)).toEqual([
        line("created", offer.price, 1, "2025-01-04T10:00:00.000Z"),
        line("revised", 1850.5, 2, "2025-01-04T11:00:00.000Z"),
        line("countered", 1700.25, 2, "2025-01-04T12:00:00.000Z"),
        line("accepted", 1850.5, 2, "2025-01-04T13:00:00.000Z")
      ])
      expect(yield* offers.history(randomUUID())).toEqual([])
    })
  )

  it.effect("offers: an expiry, or a status written without a time, adds nothing to the history", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const { offer } = yield* seedOffer
      yield* offers.updateStatus([{ id: offer.id, status: "expired" }], at("2025-01-04T13:00:00.000Z"))
      yield* offers.updateStatus([{ id: offer.id, status: "rejected" }])
      expect(yield* offers.history(offer.id)).toEqual([])
    })
  )

  it.effect("offers: lockByRequest answers every offer of the request, newest first, and nothing for unknown ids", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const { request, seller } = yield* seedRequest
      const other = yield* (yield* UserRepo).insertOrGet(aUser())
      const older = anOffer(request.id, seller.id, {
        createdAt: at("2025-01-04T09:00:00.000Z"),
        status: "withdrawn"
      })
      const newer = anOffer(request.id, other.id, { createdAt: at("2025-01-04T10:00:00.000Z") })
      yield* offers.insertUnlessPending(older)
      yield* offers.insertUnlessPending(newer)
      const { transaction } = yield* Transactor
      expect(yield* transaction(offers.lockByRequest(request.id))).toEqual([newer, older])
      expect(yield* offers.lockByRequest(randomUUID())).toEqual([])
    })
  )

  it.effect("offers: lockPendingBySeller answers the seller's pending offers on every request, newest first", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const requests = yield* RequestRepo
      const { request, seller, buyer } = yield* seedRequest
      const second = aRequest(buyer.id)
      const third = aRequest(buyer.id)
      yield* requests.insert(second)
      yield* requests.insert(third)
      const rival = yield* (yield* UserRepo).insertOrGet(aUser())
      const older = anOffer(request.id, seller.id, { createdAt: at("2025-01-04T09:00:00.000Z") })
      const newer = anOffer(second.id, seller.id, { createdAt: at("2025-01-04T10:00:00.000Z") })
      const withdrawn = anOffer(third.id, seller.id, { status: "withdrawn" })
      const ofRival = anOffer(request.id, rival.id)
      for (const offer of [older, newer, withdrawn, ofRival]) yield* offers.insertUnlessPending(offer)

      const { transaction } = yield* Transactor
      expect(yield* transaction(offers.lockPendingBySeller(seller.id))).toEqual([newer, older])
      expect(yield* offers.lockPendingBySeller(randomUUID())).toEqual([])
    })
  )

  it.effect(
    "offers: a second pending offer of a seller on a request is refused, a new one after withdrawal is not",
    () =>
      Effect.gen(function* () {
        const offers = yield* OfferRepo
        const { request, seller } = yield* seedRequest
        const first = anOffer(request.id, seller.id)
        yield* offers.insertUnlessPending(first)
        expect(yield* offers.insertUnlessPending(anOffer(request.id, seller.id))).toBe(false)

        yield* offers.updateStatus([{ id: first.id, status: "withdrawn" }])
        const second = anOffer(request.id, seller.id)
        expect(yield* offers.insertUnlessPending(second)).toBe(true)
        expect(yield* pendingOfSeller(request.id, seller.id)).toEqual([second])
        // A status change cannot make a second pending offer either.
        expect(yield* violatedUniqueRule(offers.updateStatus([{ id: first.id, status: "pending" }]))).toBe(
          "offers_one_pending_per_seller"
        )
      })
  )

  it.effect(
    "offers: insertUnlessPending inserts unless the seller has a pending offer on the request, racing ones too",
    () =>
      Effect.gen(function* () {
        const offers = yield* OfferRepo
        const { transaction } = yield* Transactor
        const { request, seller } = yield* seedRequest
        const rival = yield* (yield* UserRepo).insertOrGet(aUser())
        const first = anOffer(request.id, seller.id)
        expect(yield* offers.insertUnlessPending(first)).toBe(true)
        expect(yield* offers.findById(first.id)).toEqual(Option.some(first))

        const duplicate = anOffer(request.id, seller.id)
        expect(yield* offers.insertUnlessPending(duplicate)).toBe(false)
        expect(yield* offers.findById(duplicate.id)).toEqual(Option.none())
        expect(yield* offers.insertUnlessPending(anOffer(request.id, rival.id))).toBe(true)

        yield* offers.updateStatus([{ id: first.id, status: "withdrawn" }])
        // An insert still uncommitted when the second one runs: the second waits for it and yields.
        const inserted = yield* Deferred.make<void>()
        const racing = yield* Effect.fork(
          transaction(
            offers
              .insertUnlessPending(anOffer(request.id, seller.id))
              .pipe(Effect.zipLeft(Deferred.succeed(inserted, undefined)), Effect.zipLeft(Effect.sleep(300)))
          )
        )
        yield* Deferred.await(inserted)
        expect(yield* offers.insertUnlessPending(anOffer(request.id, seller.id))).toBe(false)
        expect(yield* Fiber.join(racing)).toBe(true)
        expect(yield* offers.insertUnlessPending(anOffer(request.id, seller.id, { status: "withdrawn" }))).toBe(true)
      })
  )

  it.effect("offers: at most one accepted offer per request", () =>
    Effect.gen(function* () {
      const offers = yield* OfferRepo
      const { offer, request } = yield* seedOffer
      const rival = yield* (yield* UserRepo).insertOrGet(aUser())
      const other = anOffer(request.id, rival.id)
      yield* offers.insertUnlessPending(other)
      yield* offers.updateStatus([{ id: offer.id, status: "accepted" }])
      expect(yield* violatedUniqueRule(offers.updateStatus([{ id: other.id, status: "accepted" }]))).toBe(
        "offers_one_accepted_per_request"
      )
    })
  )

  it.effect("deals: round-trip and completion; one deal per request", () =>
    Effect.gen(function* () {
      const deals = yield* DealRepo
      const { deal } = yield* seedDeal()
      expect(yield* deals.findById(deal.id)).toEqual(Option.some(deal))
      const completed = { ...deal, status: "completed" as const, completedAt: at("2025-02-01T00:00:00.000Z") }
      yield* deals.update(completed)
      expect(yield* deals.lock(deal.id)).toEqual(Option.some(completed))
      expect(yield* violatedUniqueRule(deals.insert({ ...deal, id: randomUUID() }))).toBe("deals_request_id_key")
    })
  )

  it.effect("ratings: one per deal", () =>
    Effect.gen(function* () {
      const ratings = yield* RatingRepo
      const { deal } = yield* seedDeal({ status: "completed", completedAt: at("2025-01-06T00:00:00.000Z") })
      const rating = (value: number) => aRating(deal, value)
      expect(yield* ratings.existsForDeal(deal.id)).toBe(false)
      yield* ratings.insert(rating(5))
      expect(yield* ratings.existsForDeal(deal.id)).toBe(true)
      expect(yield* violatedUniqueRule(ratings.insert(rating(4)))).toBe("ratings_deal_id_key")
    })
  )

  it.effect("ratings: totalsForSeller sums and counts one seller's ratings exactly", () =>
    Effect.gen(function* () {
      const ratings = yield* RatingRepo
      const completed = { status: "completed" as const, completedAt: at("2025-01-06T00:00:00.000Z") }
      const first = (yield* seedDeal(completed)).deal
      const second = (yield* seedDeal(completed)).deal
      expect(yield* ratings.totalsForSeller(first.sellerId)).toEqual({ sum: 0, count: 0 })
      for (const [deal, value] of [
        [first, 5],
        [second, 2]
      ] as const) {
        yield* ratings.insert({
          id: randomUUID(),
          dealId: deal.id,
          sellerId: deal.sellerId,
          buyerId: deal.buyerId,
          rating: value,
          reviewText: null,
          createdAt: at("2025-01-07T00:00:00.000Z")
        })
      }
      expect(yield* ratings.totalsForSeller(first.sellerId)).toEqual({ sum: 5, count: 1 })
      expect(yield* ratings.totalsForSeller(second.sellerId)).toEqual({ sum: 2, count: 1 })
      expect(yield* ratings.totalsForSeller(randomUUID())).toEqual({ sum: 0, count: 0 })
    })
  )

  it.effect("reports: round-trip and resolution", () =>
    Effect.gen(function* () {
      const reports = yield* ReportRepo
      const { buyer, deal, seller } = yield* seedDeal()
      const report: Report = {
        id: randomUUID(),
        reporterId: buyer.id,
        reportedUserId: seller.id,
        dealId: deal.id,
        reason: "no_show",
        description: null,
        status: "pending",
        action: null,
        resolutionNotes: null,
        resolvedAt: null,
        createdAt: at("2025-02-01T00:00:00.000Z")
      }
      expect(yield* reports.insertUnlessPending(report)).toBe(true)
      expect(yield* reports.lock(report.id)).toEqual(Option.some(report))

      const resolved: Report = {
        ...report,
        status: "resolved",
        action: "suspend_seller",
        resolutionNotes: "second time",
        resolvedAt: at("2025-02-02T00:00:00.000Z")
      }
      yield* reports.update(resolved)
      expect(yield* reports.lock(report.id)).toEqual(Option.some(resolved))
      expect(yield* reports.lock(randomUUID())).toEqual(Option.none())
    })
  )

  it.effect(
    "reports: one pending per reporter, reported user and deal (no deal counting as one); again once resolved",
    () =>
      Effect.gen(function* () {
        const reports = yield* ReportRepo
        const { buyer, deal, seller } = yield* seedDeal()
        const pending = (dealId: string | null): Report => ({
          id: randomUUID(),
          reporterId: buyer.id,
          reportedUserId: seller.id,
          dealId,
          reason: "scam",
          description: null,
          status: "pending",
          action: null,
          resolutionNotes: null,
          resolvedAt: null,
          createdAt: at("2025-02-01T00:00:00.000Z")
        })
        const first = pending(null)
        expect(yield* reports.insertUnlessPending(first)).toBe(true)
        const repeat = pending(null)
        expect(yield* reports.insertUnlessPending(repeat)).toBe(false)
        expect(yield* reports.lock(repeat.id)).toEqual(Option.none())
        // About a deal is another report; the reported user reporting back is another reporter.
        expect(yield* reports.insertUnlessPending(pending(deal.id))).toBe(true)
        expect(yield* reports.insertUnlessPending(pending(deal.id))).toBe(false)
        expect(
          yield* reports.insertUnlessPending({ ...pending(null), reporterId: seller.id, reportedUserId: buyer.id })
        ).toBe(true)

        yield* reports.update({
          ...first,
          status: "dismissed",
          action: "dismiss",
          resolvedAt: at("2025-02-02T00:00:00.000Z")
        })
        expect(yield* reports.insertUnlessPending(repeat)).toBe(true)
      })
  )

  it.effect("conversations: round-trip by id and offer; lock reads the offer's status with the row", () =>
    Effect.gen(function* () {
      const conversations = yield* ConversationRepo
      const { conversation, offer } = yield* seedOffer
      expect(yield* conversations.findById(conversation.id)).toEqual(Option.some(conversation))
      expect(yield* conversations.findByOfferId(offer.id)).toEqual(Option.some(conversation))
      expect(yield* conversations.lock(conversation.id)).toEqual(
        Option.some({ ...conversation, offerStatus: "pending" })
      )
      yield* (yield* OfferRepo).updateStatus([{ id: offer.id, status: "accepted" }])
      expect(some(yield* conversations.lock(conversation.id)).offerStatus).toBe("accepted")
      expect(yield* conversations.lock(randomUUID())).toEqual(Option.none())
      expect(yield* violatedUniqueRule(conversations.insert(aConversation(offer, conversation.buyerId)))).toBe(
        "conversations_offer_id_key"
      )
    })
  )

  it.effect(
    "messages: insertOnce numbers each conversation 1, 2, 3, is idempotent per sender and client id and moves the conversation's last activity forward only; markRead counts the other party's, up to a seq when given",
    () =>
      Effect.gen(function* () {
        const messages = yield* MessageRepo
        const { buyer, conversation, seller } = yield* seedOffer
        const clientId = `c-${randomUUID()}`
        const first = aMessage(conversation, buyer.id, { clientId })
        expect(yield* messages.insertOnce(first)).toEqual({ message: { ...first, seq: 1 }, created: true })
        const retry = aMessage(conversation, buyer.id, { clientId, messageText: "retried" })
        expect(yield* messages.insertOnce(retry)).toEqual({ message: { ...first, seq: 1 }, created: false })

        const sameClientIdOtherSender = aMessage(conversation, seller.id, { clientId })
        expect((yield* messages.insertOnce(sameClientIdOtherSender)).message.seq).toBe(2)
        const plain = aMessage(conversation, buyer.id)
        expect(yield* messages.insertOnce(plain)).toEqual({ message: { ...plain, seq: 3 }, created: true })
        const elsewhere = yield* seedOffer
        expect((yield* messages.insertOnce(aMessage(elsewhere.conversation, buyer.id))).message.seq).toBe(1)

        expect(yield* messages.markRead(conversation.id, seller.id, at("2025-02-01T00:00:00.000Z"), 1)).toBe(1)
        expect(yield* messages.markRead(conversation.id, seller.id, at("2025-02-01T00:00:00.000Z"))).toBe(1)
        expect(yield* messages.markRead(conversation.id, seller.id, at("2025-02-01T00:00:01.000Z"))).toBe(0)
        expect(yield* messages.markRead(conversation.id, buyer.id, at("2025-02-01T00:00:02.000Z"))).toBe(1)
        const conversations = yield* ConversationRepo
        const lastMessageAt = Effect.map(conversations.findById(conversation.id), (found) => some(found).lastMessageAt)
        expect(yield* lastMessageAt).toEqual(plain.createdAt)
        // A message stored with an earlier time (a late writer) leaves the last activity where it was.
        yield* messages.insertOnce(aMessage(conversation, seller.id, { createdAt: at("2000-01-01T00:00:00.000Z") }))
        expect(yield* lastMessageAt).toEqual(plain.createdAt)
        // A retry stores nothing and moves nothing.
        yield* messages.insertOnce({ ...retry, createdAt: at("2999-01-01T00:00:00.000Z") })
        expect(yield* lastMessageAt).toEqual(plain.createdAt)
        const later = aMessage(conversation, seller.id, { createdAt: at("2025-03-01T00:00:00.000Z") })
        yield* messages.insertOnce(later)
        expect(yield* lastMessageAt).toEqual(later.createdAt)
      })
  )

  it.effect("outbox: appended events are stored with their type and payload", () =>
    Effect.gen(function* () {
      const probe = yield* RepositoryProbe
      const requestId = randomUUID()
      const buyerId = randomUUID()
      yield* (yield* EventOutbox).append(
        [
          DomainEvent.RequestCreated({ requestId, buyerId }),
          DomainEvent.RequestClosed({ requestId, buyerId, reason: "owner" })
        ],
        at("2025-02-01T00:00:00.000Z")
      )
      yield* (yield* EventOutbox).append([], at("2025-02-01T00:00:00.000Z"))
      const rows = yield* probe.eventsWhere("requestId", requestId)
      expect([...rows].sort((a, b) => b.type.localeCompare(a.type))).toEqual([
        { type: "RequestCreated", payload: { requestId, buyerId }, createdAt: at("2025-02-01T00:00:00.000Z") },
        {
          type: "RequestClosed",
          payload: { requestId, buyerId, reason: "owner" },
          createdAt: at("2025-02-01T00:00:00.000Z")
        }
      ])
    })
  )

  it.effect("outbox: events appended in a transaction that fails are not stored", () =>
    Effect.gen(function* () {
      const outbox = yield* EventOutbox
      const probe = yield* RepositoryProbe
      const { transaction } = yield* Transactor
      const requestId = randomUUID()
      const closed = DomainEvent.RequestClosed({ requestId, buyerId: randomUUID(), reason: "owner" })
      const refused = yield* transaction(
        Effect.zipRight(outbox.append([closed], at("2025-02-01T00:00:00.000Z")), Effect.fail("no"))
      ).pipe(Effect.flip)
      expect(refused).toBe("no")
      expect(yield* probe.eventsWhere("requestId", requestId)).toEqual([])

      yield* transaction(outbox.append([closed], at("2025-02-01T00:00:00.000Z")))
      expect((yield* probe.eventsWhere("requestId", requestId)).map((row) => row.type)).toEqual(["RequestClosed"])
    })
  )

  it.effect("transactor: a failure, or a defect, rolls back every write; success commits", () =>
    Effect.gen(function* () {
      const { transaction } = yield* Transactor
      const users = yield* UserRepo
      const requests = yield* RequestRepo
      const writeBoth = Effect.gen(function* () {
        const user = yield* users.insertOrGet(aUser())
        const request = aRequest(user.id)
        yield* requests.insert(request)
        return { user, request }
      })

      let written = { user: aUser(), request: aRequest(randomUUID()) }
      const failed = yield* transaction(
        Effect.tap(writeBoth, (w) => {
          written = w
          return Effect.fail("business rule broken" as const)
        })
      ).pipe(Effect.flip)
      expect(failed).toBe("business rule broken")
      expect(yield* users.findById(written.user.id)).toEqual(Option.none())
      expect(yield* requests.findById(written.request.id)).toEqual(Option.none())

      yield* transaction(
        Effect.tap(writeBoth, (w) => {
          written = w
          return Effect.die("bug")
        })
      ).pipe(Effect.exit)
      expect(yield* users.findById(written.user.id)).toEqual(Option.none())

      const committed = yield* transaction(writeBoth)
      expect(yield* requests.findById(committed.request.id)).toEqual(Option.some(committed.request))
    })
  )

  it.effect("transactor: a nested transaction joins the outer one; when it fails, only its own writes are undone", () =>
    Effect.gen(function* () {
      const { transaction } = yield* Transactor
      const users = yield* UserRepo
      const requests = yield* RequestRepo
      const buyer = yield* users.insertOrGet(aUser())
      const kept = aRequest(buyer.id)
      const undone = aRequest(buyer.id)

      const inner = yield* transaction(
        Effect.gen(function* () {
          yield* requests.insert(kept)
          const failed = yield* transaction(
            Effect.zipRight(requests.insert(undone), Effect.fail("inner rule broken" as const))
          ).pipe(Effect.flip)
          // The outer transaction still sees its own write, and not the inner one's.
          expect(yield* requests.findById(kept.id)).toEqual(Option.some(kept))
          expect(yield* requests.findById(undone.id)).toEqual(Option.none())
          return failed
        })
      )
      expect(inner).toBe("inner rule broken")
      expect(yield* requests.findById(kept.id)).toEqual(Option.some(kept))
      expect(yield* requests.findById(undone.id)).toEqual(Option.none())

      // An inner success commits with the outer transaction, and is undone with it.
      const both = [aRequest(buyer.id), aRequest(buyer.id)] as const
      yield* transaction(
        Effect.gen(function* () {
          yield* requests.insert(both[0])
          yield* transaction(requests.insert(both[1]))
          return yield* Effect.fail("outer rule broken")
        })
      ).pipe(Effect.flip)
      for (const request of both) expect(yield* requests.findById(request.id)).toEqual(Option.none())
    })
  )

  it.effect("lock: two transactions locking one request are serialised, so both increments count", () =>
    Effect.gen(function* () {
      const { transaction } = yield* Transactor
      const requests = yield* RequestRepo
      const { request } = yield* seedRequest
      const firstHoldsLock = yield* Deferred.make<void>()
      const holdMillis = 400

      const increment = (whileLocked: Effect.Effect<void>) =>
        transaction(
          Effect.gen(function* () {
            const locked = some(yield* requests.lock(request.id))
            const lockedAt = Date.now()
            yield* whileLocked
            yield* requests.update({ ...locked, offerCount: locked.offerCount + 1 })
            return lockedAt
          })
        )

      const first = yield* Effect.fork(
        increment(Deferred.succeed(firstHoldsLock, undefined).pipe(Effect.zipRight(Effect.sleep(holdMillis))))
      )
      yield* Deferred.await(firstHoldsLock)
      const secondStartedAt = Date.now()
      const secondLockedAt = yield* increment(Effect.void)
      yield* Fiber.join(first)

      expect(secondLockedAt - secondStartedAt).toBeGreaterThanOrEqual(holdMillis - 50)
      expect(some(yield* requests.findById(request.id)).offerCount).toBe(request.offerCount + 2)
    })
  )
}

/** {@link repositoryPortTests} as a suite of its own, on one build of `ports`. */
export const repositoryContract = <E>(name: string, ports: Layer.Layer<PortsUnderTest, E>) =>
  layer(ports, { timeout: Duration.minutes(2), excludeTestServices: true })(name, repositoryPortTests)
