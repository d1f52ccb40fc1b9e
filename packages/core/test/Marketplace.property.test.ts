/**
 * Model-based property test of the marketplace state machine: one buy request, a handful of would-be sellers,
 * random command sequences applied through the core's transition functions only. A Left leaves the world
 * unchanged. After every step an independent oracle predicts the outcome (Right or which error) and the
 * invariants of service-spec.md "States and transitions" and decisions.md §3 are checked.
 *
 * The service's close operation is modelled as `closeRequest` + `rejectPendingOffers` (decisions.md §3:
 * "Closing a request by its owner turns its pending offers rejected").
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  acceptOffer,
  type BuyRequest,
  cancelDeal,
  closeRequest,
  completeDeal,
  createOffer,
  createRequest,
  type Deal,
  DealStatus,
  type DomainEvent,
  type Offer,
  OfferStatus,
  type Rating,
  RequestStatus,
  rateDeal,
  rejectPendingOffers,
  type SellerProfile,
  withdrawOffer
} from "../src/index.js"
import { at, BUYER, newRequestInput, right } from "./support/helpers.js"

// ---------------------------------------------------------------------------------------------------------------
// Actors

interface Actor {
  readonly id: string
  readonly profile: Pick<SellerProfile, "status"> | null
}

/** The buyer has an approved profile too, so only the own-request rule stops them. */
const ACTORS: ReadonlyArray<Actor> = [
  { id: BUYER, profile: { status: "approved" } },
  { id: "seller-a", profile: { status: "approved" } },
  { id: "seller-b", profile: { status: "approved" } },
  { id: "seller-c", profile: { status: "approved" } },
  { id: "seller-pending", profile: { status: "pending" } },
  { id: "seller-rejected", profile: { status: "rejected" } },
  { id: "seller-suspended", profile: { status: "suspended" } },
  { id: "no-profile", profile: null }
]
const APPROVED_SELLERS = [1, 2, 3]

// ---------------------------------------------------------------------------------------------------------------
// Commands

type Command =
  | { readonly kind: "offer"; readonly actor: number; readonly price: number }
  | { readonly kind: "withdraw"; readonly pick: number; readonly pendingOnly: boolean }
  | { readonly kind: "accept"; readonly pick: number; readonly pendingOnly: boolean }
  | { readonly kind: "close" }
  | { readonly kind: "complete" }
  | { readonly kind: "cancel"; readonly reason: string }
  | { readonly kind: "rate"; readonly value: number }
  | { readonly kind: "tick"; readonly ms: number }

const pickArb = fc.record({ pick: fc.nat({ max: 50 }), pendingOnly: fc.boolean() })

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("offer" as const),
      actor: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...APPROVED_SELLERS) },
        { weight: 1, arbitrary: fc.nat({ max: ACTORS.length - 1 }) }
      ),
      price: fc.integer({ min: 1, max: 1_000 })
    })
  },
  { weight: 3, arbitrary: pickArb.map((p) => ({ kind: "withdraw" as const, ...p })) },
  { weight: 2, arbitrary: pickArb.map((p) => ({ kind: "accept" as const, ...p })) },
  { weight: 1, arbitrary: fc.constant({ kind: "close" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "complete" as const }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("no show", "changed mind").map((reason) => ({ kind: "cancel" as const, reason }))
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) },
        { weight: 1, arbitrary: fc.constantFrom(0, 6, 2.5, -1) }
      )
      .map((value) => ({ kind: "rate" as const, value }))
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3_600_000 }).map((ms) => ({ kind: "tick" as const, ms })) }
)

/**
 * Random sequences; half of them have a happy path (offer, accept, complete) spliced in after a random prefix, so
 * the deal and rating states are reached often (the prefix may still have closed the request, which is fine).
 */
const commandsArb: fc.Arbitrary<ReadonlyArray<Command>> = fc
  .tuple(
    fc.array(commandArb, { maxLength: 12 }),
    fc.boolean(),
    fc.constantFrom(...APPROVED_SELLERS),
    fc.array(commandArb, { minLength: 1, maxLength: 50 })
  )
  .map(
    ([prefix, happy, actor, rest]): ReadonlyArray<Command> =>
      happy
        ? [
            ...prefix,
            { kind: "offer", actor, price: 200 },
            { kind: "accept", pick: 0, pendingOnly: true },
            { kind: "complete" },
            ...rest
          ]
        : [...prefix, ...rest]
  )

// ---------------------------------------------------------------------------------------------------------------
// World

interface World {
  readonly request: BuyRequest
  readonly offers: ReadonlyArray<Offer>
  readonly deal: Deal | null
  readonly ratings: ReadonlyArray<Rating>
  readonly clock: number
  readonly seq: number
}

const initialWorld = (): World => ({
  request: right(createRequest(newRequestInput(), at(0))).state,
  offers: [],
  deal: null,
  ratings: [],
  clock: 0,
  seq: 0
})

/** "ok", "skip" (nothing to act on), or the tag (plus field key for validation) of the expected error. */
type Outcome = string

const replaceOffers = (offers: ReadonlyArray<Offer>, changed: ReadonlyArray<Offer>) => {
  const byId = new Map(changed.map((o) => [o.id, o]))
  return offers.map((o) => byId.get(o.id) ?? o)
}

const chooseOffer = (world: World, pick: number, pendingOnly: boolean): Offer | null => {
  const pending = world.offers.filter((o) => o.status === "pending")
  const pool = pendingOnly && pending.length > 0 ? pending : world.offers
  return pool.length === 0 ? null : (pool[pick % pool.length] ?? null)
}

const errorKey = (error: {
  readonly _tag: string
  readonly details?: Readonly<Record<string, ReadonlyArray<{ readonly key: string }>>>
}) =>
  error._tag === "ValidationFailed" && error.details !== undefined
    ? `ValidationFailed:${Object.values(error.details)
        .flat()
        .map((p) => p.key)
        .join(",")}`
    : error._tag

/** An oracle written from the spec, independent of the core's code: what should this command do? */
const expectedOutcome = (world: World, command: Command): Outcome => {
  switch (command.kind) {
    case "offer": {
      const actor = ACTORS[command.actor]!
      if (actor.profile?.status !== "approved") return "SellerNotApproved"
      if (actor.id === world.request.buyerId) return "CannotOfferOnOwnRequest"
      if (world.request.status !== "active") return "RequestNotActive"
      if (world.offers.some((o) => o.sellerId === actor.id && o.status === "pending")) return "DuplicatePendingOffer"
      return "ok"
    }
    case "withdraw":
    case "accept": {
      const offer = chooseOffer(world, command.pick, command.pendingOnly)
      if (offer === null) return "skip"
      if (offer.status === "accepted") return "OfferAlreadyAccepted"
      if (offer.status !== "pending") return "OfferNotPending"
      if (command.kind === "accept" && world.request.status !== "active") return "RequestNotActive"
      return "ok"
    }
    case "close":
      return world.request.status === "closed" ? "RequestAlreadyClosed" : "ok"
    case "complete":
    case "cancel":
      if (world.deal === null) return "skip"
      return world.deal.status === "accepted" ? "ok" : "DealNotActive"
    case "rate":
      if (world.deal === null) return "skip"
      if (!Number.isInteger(command.value) || command.value < 1 || command.value > 5)
        return "ValidationFailed:rating_range"
      if (world.deal.status !== "completed") return "ValidationFailed:deal_not_completed"
      if (world.ratings.length > 0) return "ValidationFailed:deal_already_rated"
      return "ok"
    case "tick":
      return "ok"
  }
}

interface Stepped {
  readonly world: World
  readonly outcome: Outcome
  readonly events: ReadonlyArray<DomainEvent>
}

/** Applies one command through the core's transitions only. A Left leaves the world as it was. */
const step = (world0: World, command: Command): Stepped => {
  const world: World = { ...world0, clock: world0.clock + 1 }
  const now = at(world.clock)
  const unchanged = (outcome: Outcome): Stepped => ({ world: world0, outcome, events: [] })

  switch (command.kind) {
    case "offer": {
      const actor = ACTORS[command.actor]!
      const id = `offer-${world.seq}`
      const result = createOffer({
        input: {
          id,
          validUntil: null,
          requestId: world.request.id,
          sellerId: actor.id,
          price: command.price,
          availability: "now",
          conditionNotes: null,
          warrantyNotes: null
        },
        request: world.request,
        sellerProfile: actor.profile,
        conversationId: `conversation-${world.seq}`,
        now
      })
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      // The use case's insert (`OfferRepo.insertUnlessPending`) refuses a seller's second pending offer.
      if (world.offers.some((o) => o.sellerId === actor.id && o.status === "pending")) {
        return unchanged("DuplicatePendingOffer")
      }
      const { offer, request } = result.right.state
      return {
        world: { ...world, seq: world.seq + 1, request, offers: [...world.offers, offer] },
        outcome: "ok",
        events: result.right.events
      }
    }
    case "withdraw": {
      const chosen = chooseOffer(world, command.pick, command.pendingOnly)
      if (chosen === null) return unchanged("skip")
      const result = withdrawOffer(chosen, world.request)
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      const { offer, request } = result.right.state
      return {
        world: { ...world, request, offers: replaceOffers(world.offers, [offer]) },
        outcome: "ok",
        events: result.right.events
      }
    }
    case "accept": {
      const chosen = chooseOffer(world, command.pick, command.pendingOnly)
      if (chosen === null) return unchanged("skip")
      const result = acceptOffer({
        offer: chosen,
        request: world.request,
        sellerProfile: ACTORS.find((actor) => actor.id === chosen.sellerId)?.profile ?? null,
        otherOffers: world.offers,
        dealId: `deal-${world.seq}`,
        conversationId: `conversation-of-${chosen.id}`,
        now
      })
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      const { offer, request, rejected, deal } = result.right.state
      return {
        world: {
          ...world,
          seq: world.seq + 1,
          request,
          deal,
          offers: replaceOffers(world.offers, [offer, ...rejected])
        },
        outcome: "ok",
        events: result.right.events
      }
    }
    case "close": {
      // The service: closeRequest, then rejectPendingOffers on the request's offers, in one transaction.
      const result = closeRequest(world.request, now)
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      const { rejected, events } = rejectPendingOffers(world.offers)
      return {
        world: { ...world, request: result.right.state, offers: replaceOffers(world.offers, rejected) },
        outcome: "ok",
        events: [...result.right.events, ...events]
      }
    }
    case "complete":
    case "cancel": {
      if (world.deal === null) return unchanged("skip")
      const result =
        command.kind === "complete"
          ? completeDeal(world.deal, now)
          : cancelDeal(world.deal, { reason: command.reason, description: null }, now)
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      return { world: { ...world, deal: result.right.state }, outcome: "ok", events: result.right.events }
    }
    case "rate": {
      if (world.deal === null) return unchanged("skip")
      const result = rateDeal({
        id: `rating-${world.seq}`,
        deal: world.deal,
        alreadyRated: world.ratings.some((r) => r.dealId === world.deal?.id),
        rating: command.value,
        reviewText: null,
        now
      })
      if (Either.isLeft(result)) return unchanged(errorKey(result.left))
      return {
        world: { ...world, seq: world.seq + 1, ratings: [...world.ratings, result.right.state] },
        outcome: "ok",
        events: result.right.events
      }
    }
    case "tick":
      return { world: { ...world, clock: world.clock + command.ms }, outcome: "ok", events: [] }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Invariants

const REQUEST_STATUSES: ReadonlyArray<string> = RequestStatus.literals
const OFFER_STATUSES: ReadonlyArray<string> = OfferStatus.literals
const DEAL_STATUSES: ReadonlyArray<string> = DealStatus.literals

const ALLOWED_DEAL_MOVES = new Set([
  "null>null",
  "null>accepted",
  "accepted>accepted",
  "accepted>completed",
  "accepted>cancelled",
  "completed>completed",
  "cancelled>cancelled"
])

const checkInvariants = (prev: World, next: World, command: Command, stepped: Stepped) => {
  const { request, offers, deal, ratings } = next

  // request status in {active, closed}; closedAt set exactly when closed; closed never reopens
  expect(REQUEST_STATUSES).toContain(request.status)
  expect(request.closedAt === null).toBe(request.status === "active")
  if (prev.request.status === "closed") {
    expect(request.status).toBe("closed")
    expect(request.closedAt).toEqual(prev.request.closedAt)
  }

  // offer statuses in the offer set; offers never vanish; only pending offers change state
  for (const offer of offers) expect(OFFER_STATUSES).toContain(offer.status)
  expect(new Set(offers.map((o) => o.id)).size).toBe(offers.length)
  expect(offers.length).toBeGreaterThanOrEqual(prev.offers.length)
  prev.offers.forEach((before, i) => {
    const after = offers[i]!
    expect(after.id).toBe(before.id)
    if (before.status !== "pending") expect(after.status).toBe(before.status)
  })

  // nobody offers on their own request; only approved sellers' offers exist
  for (const offer of offers) {
    expect(offer.sellerId).not.toBe(request.buyerId)
    expect(ACTORS.find((a) => a.id === offer.sellerId)?.profile?.status).toBe("approved")
  }

  // at most one accepted offer; accepted offer <=> a deal on it, and the request is closed
  const accepted = offers.filter((o) => o.status === "accepted")
  expect(accepted.length).toBeLessThanOrEqual(1)
  if (accepted.length === 1) {
    const offer = accepted[0]!
    expect(request.status).toBe("closed")
    expect(deal).not.toBeNull()
    expect(deal?.offerId).toBe(offer.id)
    expect(deal?.sellerId).toBe(offer.sellerId)
    expect(deal?.buyerId).toBe(request.buyerId)
    expect(deal?.requestId).toBe(request.id)
  } else {
    expect(deal).toBeNull()
  }

  // no pending offer on a closed request
  if (request.status === "closed") expect(offers.filter((o) => o.status === "pending")).toEqual([])

  // offerCount counts the offers that are not withdrawn
  expect(request.offerCount).toBe(offers.filter((o) => o.status !== "withdrawn").length)

  // at most one pending offer per seller
  const pendingSellers = offers.filter((o) => o.status === "pending").map((o) => o.sellerId)
  expect(new Set(pendingSellers).size).toBe(pendingSellers.length)

  // deal: only accepted -> completed | cancelled, never leaves completed / cancelled, timestamps follow status
  const move = `${prev.deal?.status ?? "null"}>${deal?.status ?? "null"}`
  expect(ALLOWED_DEAL_MOVES.has(move), `deal move ${move}`).toBe(true)
  if (prev.deal !== null && prev.deal.status !== "accepted") expect(deal).toEqual(prev.deal)
  if (prev.deal !== null) expect(deal?.id).toBe(prev.deal.id)
  if (deal !== null) {
    expect(DEAL_STATUSES).toContain(deal.status)
    expect(deal.completedAt !== null).toBe(deal.status === "completed")
    expect(deal.cancelledAt !== null).toBe(deal.status === "cancelled")
  }

  // a rating exists only for a completed deal, at most one, with a valid value, for that deal's seller
  expect(ratings.length).toBeLessThanOrEqual(1)
  for (const rating of ratings) {
    expect(deal?.status).toBe("completed")
    expect(rating.dealId).toBe(deal?.id)
    expect(rating.sellerId).toBe(deal?.sellerId)
    expect(rating.buyerId).toBe(request.buyerId)
    expect(Number.isInteger(rating.rating) && rating.rating >= 1 && rating.rating <= 5).toBe(true)
  }

  // events agree with the state change
  const tags = stepped.events.map((e) => e._tag)
  const newlyRejected = offers.filter((o, i) => o.status === "rejected" && prev.offers[i]?.status === "pending").length
  expect(tags.filter((t) => t === "OfferRejected").length).toBe(newlyRejected)
  if (command.kind === "accept" && stepped.outcome === "ok") {
    expect(tags.slice(0, 3)).toEqual(["OfferAccepted", "DealCreated", "RequestClosed"])
  }
  if (stepped.outcome !== "ok") {
    expect(stepped.world).toBe(prev)
    expect(stepped.events).toEqual([])
  }
}

// ---------------------------------------------------------------------------------------------------------------

describe("marketplace model (property)", () => {
  const seen = new Map<string, number>()
  const note = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1)

  it("every command sequence keeps the invariants and matches the spec oracle", () => {
    fc.assert(
      fc.property(commandsArb, (commands) => {
        let world = initialWorld()
        for (const command of commands) {
          const expected = expectedOutcome(world, command)
          const stepped = step(world, command)
          expect(stepped.outcome, `${command.kind}`).toBe(expected)
          checkInvariants(world, stepped.world, command, stepped)
          note(`${command.kind}:${stepped.outcome}`)
          world = stepped.world
        }
        if (world.deal?.status === "completed") note("run:completed-deal")
        if (world.ratings.length === 1) note("run:rated")
      }),
      { numRuns: 500 }
    )

    // The property is only worth something if the interesting paths were actually reached.
    for (const key of [
      "offer:ok",
      "offer:SellerNotApproved",
      "offer:CannotOfferOnOwnRequest",
      "offer:RequestNotActive",
      "offer:DuplicatePendingOffer",
      "withdraw:ok",
      "withdraw:OfferAlreadyAccepted",
      "withdraw:OfferNotPending",
      "accept:ok",
      "accept:OfferNotPending",
      "accept:OfferAlreadyAccepted",
      "close:ok",
      "close:RequestAlreadyClosed",
      "complete:ok",
      "complete:DealNotActive",
      "cancel:ok",
      "cancel:DealNotActive",
      "rate:ok",
      "rate:ValidationFailed:rating_range",
      "rate:ValidationFailed:deal_not_completed",
      "rate:ValidationFailed:deal_already_rated",
      "run:rated"
    ]) {
      expect(seen.get(key) ?? 0, `path ${key} was never exercised`).toBeGreaterThan(0)
    }
    // 500 runs are seconds of CPU alone, and several times that on two cores shared with the rest of the suite.
  }, 180_000)
})
