import { Either } from "effect"
import type {
  BuyRequest,
  Deal,
  DomainEvent,
  NewBuyRequest,
  NewReport,
  NewSellerProfile,
  Offer,
  SellerProfile
} from "../../src/index.js"

/** Fixed instants used across the tests. */
export const T0 = new Date("2025-01-01T10:00:00.000Z")
export const at = (ms: number) => new Date(T0.getTime() + ms)

export const BUYER = "buyer-1"
export const SELLER = "seller-1"
export const SELLER_2 = "seller-2"

/** The success side of a transition, failing the test with the error's tag otherwise. */
export const right = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) {
    const error = result.left as { readonly _tag?: string }
    throw new Error(`expected Right, got Left(${String(error?._tag)})`)
  }
  return result.right
}

/** The failure side of a transition, failing the test otherwise. */
export const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) throw new Error("expected Left, got Right")
  return result.left
}

export const tagsOf = (events: ReadonlyArray<DomainEvent>) => events.map((e) => e._tag)

export const newRequestInput = (overrides: Partial<NewBuyRequest> = {}): NewBuyRequest => ({
  id: "request-1",
  buyerId: BUYER,
  category: "phone",
  productBrand: "Apple",
  productModel: "iPhone 15",
  conditionPref: "any",
  budgetMin: 100,
  budgetMax: 500,
  locationDistrict: "Downtown",
  locationCity: "Cairo",
  notes: null,
  ...overrides
})

export const activeRequest = (overrides: Partial<BuyRequest> = {}): BuyRequest => ({
  ...newRequestInput(),
  status: "active",
  offerCount: 0,
  createdAt: T0,
  closedAt: null,
  expiresAt: new Date(T0.getTime() + 30 * 24 * 60 * 60 * 1000),
  extendedAt: null,
  remindedAt: null,
  ...overrides
})

export const offerOf = (overrides: Partial<Offer> = {}): Offer => ({
  id: "offer-1",
  requestId: "request-1",
  sellerId: SELLER,
  price: 300,
  revision: 1,
  availability: "today",
  conditionNotes: null,
  warrantyNotes: null,
  status: "pending",
  createdAt: T0,
  validUntil: null,
  ...overrides
})

export const dealOf = (overrides: Partial<Deal> = {}): Deal => ({
  id: "deal-1",
  requestId: "request-1",
  offerId: "offer-1",
  buyerId: BUYER,
  sellerId: SELLER,
  conversationId: "conversation-1",
  status: "accepted",
  createdAt: T0,
  completedAt: null,
  cancelledAt: null,
  cancelReason: null,
  cancelDescription: null,
  ...overrides
})

export const newProfileInput = (overrides: Partial<NewSellerProfile> = {}): NewSellerProfile => ({
  id: "profile-1",
  userId: SELLER,
  businessName: "Phone Shop",
  locationDistrict: "Downtown",
  locationCity: null,
  bio: null,
  ...overrides
})

export const profileOf = (overrides: Partial<SellerProfile> = {}): SellerProfile => ({
  ...newProfileInput(),
  status: "pending",
  ratingAvg: 0,
  ratingCount: 0,
  createdAt: T0,
  approvedAt: null,
  rejectionReason: null,
  ...overrides
})

export const newReportInput = (overrides: Partial<NewReport> = {}): NewReport => ({
  id: "report-1",
  reporterId: BUYER,
  reportedUserId: SELLER,
  dealId: "deal-1",
  reason: "scam",
  description: "never showed up",
  ...overrides
})
