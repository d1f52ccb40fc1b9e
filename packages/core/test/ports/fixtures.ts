import { randomInt, randomUUID } from "node:crypto"
import { Effect } from "effect"
import {
  type BuyRequest,
  type Conversation,
  ConversationRepo,
  type Deal,
  DealRepo,
  type NewMessage,
  newUser,
  type Offer,
  OfferRepo,
  type Rating,
  RequestRepo,
  type SellerProfile,
  SellerProfileRepo,
  type User,
  UserRepo
} from "../../src/index.js"

/*
 * Rows for the repository contract (./repositoryContract.ts), made and stored through the ports only, so they
 * seed the SQL adapters and the in-memory ones alike.
 */

/** Postgres keeps microseconds, JS milliseconds: whole-millisecond times round-trip exactly. */
export const at = (iso: string) => new Date(iso)

export const aPhoneNumber = () => `+9665${String(randomInt(0, 100_000_000)).padStart(8, "0")}`

export const aUser = (overrides: Partial<User> = {}): User => ({
  ...newUser({ id: randomUUID(), phoneNumber: aPhoneNumber(), isAdmin: false, now: at("2025-01-01T10:00:00.000Z") }),
  ...overrides
})

export const aSellerProfile = (userId: string, overrides: Partial<SellerProfile> = {}): SellerProfile => ({
  id: randomUUID(),
  userId,
  status: "pending",
  businessName: "Riyadh Phones",
  locationDistrict: "Olaya",
  locationCity: "Riyadh",
  bio: null,
  ratingAvg: 0,
  ratingCount: 0,
  createdAt: at("2025-01-02T10:00:00.000Z"),
  approvedAt: null,
  rejectionReason: null,
  ...overrides
})

export const aRequest = (buyerId: string, overrides: Partial<BuyRequest> = {}): BuyRequest => ({
  id: randomUUID(),
  buyerId,
  category: "phone",
  productBrand: "Apple",
  productModel: "iPhone 15",
  conditionPref: "used",
  budgetMin: 1500.5,
  budgetMax: 2999.99,
  locationDistrict: "Olaya",
  locationCity: "Riyadh",
  notes: "Blue, 128 GB",
  status: "active",
  offerCount: 0,
  createdAt: at("2025-01-03T10:00:00.123Z"),
  closedAt: null,
  expiresAt: at("2025-02-02T10:00:00.123Z"),
  extendedAt: null,
  remindedAt: null,
  ...overrides
})

export const anOffer = (requestId: string, sellerId: string, overrides: Partial<Offer> = {}): Offer => ({
  id: randomUUID(),
  requestId,
  sellerId,
  price: 2100.25,
  revision: 1,
  availability: "today",
  conditionNotes: "like new",
  warrantyNotes: null,
  status: "pending",
  createdAt: at("2025-01-04T10:00:00.000Z"),
  validUntil: null,
  ...overrides
})

export const aConversation = (offer: Offer, buyerId: string, overrides: Partial<Conversation> = {}): Conversation => ({
  id: randomUUID(),
  offerId: offer.id,
  buyerId,
  sellerId: offer.sellerId,
  createdAt: offer.createdAt,
  lastMessageAt: null,
  ...overrides
})

const aDeal = (request: BuyRequest, offer: Offer, conversationId: string, overrides: Partial<Deal> = {}): Deal => ({
  id: randomUUID(),
  requestId: request.id,
  offerId: offer.id,
  buyerId: request.buyerId,
  sellerId: offer.sellerId,
  conversationId,
  status: "accepted",
  createdAt: at("2025-01-05T10:00:00.000Z"),
  completedAt: null,
  cancelledAt: null,
  cancelReason: null,
  cancelDescription: null,
  ...overrides
})

/** The buyer's rating of a completed deal's seller. */
export const aRating = (deal: Deal, rating: number): Rating => ({
  id: randomUUID(),
  dealId: deal.id,
  sellerId: deal.sellerId,
  buyerId: deal.buyerId,
  rating,
  reviewText: "quick and honest",
  createdAt: at("2025-01-07T00:00:00.000Z")
})

export const aMessage = (
  conversation: Conversation,
  senderId: string,
  overrides: Partial<NewMessage> = {}
): NewMessage => ({
  id: randomUUID(),
  conversationId: conversation.id,
  senderId,
  kind: "text",
  messageText: "Is it still available?",
  clientId: null,
  readAt: null,
  createdAt: at("2025-01-04T11:00:00.000Z"),
  ...overrides
})

/** A buyer with an active request and an approved seller, stored. */
export const seedRequest = Effect.gen(function* () {
  const users = yield* UserRepo
  const buyer = yield* users.insertOrGet(aUser())
  const seller = yield* users.insertOrGet(aUser())
  yield* (yield* SellerProfileRepo).insertIfAbsent(
    aSellerProfile(seller.id, { status: "approved", approvedAt: at("2025-01-02T12:00:00.000Z") })
  )
  const request = aRequest(buyer.id)
  yield* (yield* RequestRepo).insert(request)
  return { buyer, seller, request }
})

/** A seeded request with a pending offer of the seller and its conversation, stored. */
export const seedOffer = Effect.gen(function* () {
  const seeded = yield* seedRequest
  const offer = anOffer(seeded.request.id, seeded.seller.id)
  yield* (yield* OfferRepo).insertUnlessPending(offer)
  const conversation = aConversation(offer, seeded.buyer.id)
  yield* (yield* ConversationRepo).insert(conversation)
  return { ...seeded, offer, conversation }
})

/** A seeded offer accepted into a deal, stored as the accept transition leaves it. */
export const seedDeal = (overrides: Partial<Deal> = {}) =>
  Effect.gen(function* () {
    const seeded = yield* seedOffer
    const offer: Offer = { ...seeded.offer, status: "accepted" }
    yield* (yield* OfferRepo).updateStatus([offer])
    const request: BuyRequest = { ...seeded.request, status: "closed", closedAt: at("2025-01-05T10:00:00.000Z") }
    yield* (yield* RequestRepo).update(request)
    const deal = aDeal(request, offer, seeded.conversation.id, overrides)
    yield* (yield* DealRepo).insert(deal)
    return { ...seeded, offer, request, deal }
  })
