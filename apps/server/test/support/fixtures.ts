import type { RequestBody, ResponseData } from "@talab/client-sdk/types"
import type { TestServer } from "@talab/testkit"
import { expect } from "vitest"
import {
  type Backend,
  type Client,
  client,
  newPhone,
  type Response,
  relaxedLimits,
  type SignedIn,
  signIn,
  useServer
} from "./harness.js"

/*
 * Builders for the marketplace end-to-end suites: every step goes through the public REST API and fails
 * loudly (with the whole response) when the server answers something other than the spec's success.
 */

/** A timestamp as the API writes every one: UTC with milliseconds (`toISOString`). */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const ARABIC = /[\u0600-\u06FF]/
const LATIN = /[A-Za-z]/

/**
 * Fields of a body to change: the operation's own, plus any other, for the tests that send fields the API must
 * ignore (a forged `id` or `status`).
 */
export type Overrides<Body> = Partial<Body> & Record<string, unknown>

export type Language = "ar" | "en"
export const languages: ReadonlyArray<Language> = ["ar", "en"]

/** A random UUID that names nothing. */
export const unknownId = () => crypto.randomUUID()

/** The test server settings of the marketplace suites: high limits and the given admins. */
export const marketplaceSettings = (adminPhoneNumbers: ReadonlyArray<string>) => ({
  settings: { ...relaxedLimits, adminPhoneNumbers: [...adminPhoneNumbers] }
})

/** Throws with the whole response unless its status is the expected one; answers the body, typed by the call. */
export const expectStatus = <Body>(response: Response<Body>, status: number, what: string): Body => {
  if (response.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`)
  }
  return response.body
}

/** The error envelope's `error`, the same for every operation (and for paths the API does not have). */
export interface ApiError {
  readonly code: string
  readonly message: string
  readonly details: Record<string, Array<string>>
}

/**
 * Asserts the spec's error envelope: the status, the code, a message, an object of details and (when given)
 * exactly the fields of `details`. Takes any answer, typed or raw, since an error has one shape everywhere.
 */
export const expectError = (
  response: { readonly status: number; readonly body: unknown },
  status: number,
  code: string,
  detailFields?: ReadonlyArray<string>
): ApiError => {
  const body = response.body as { success?: unknown; error?: ApiError } | undefined
  expect({ status: response.status, code: body?.error?.code }, JSON.stringify(body)).toEqual({ status, code })
  expect(body?.success).toBe(false)
  const error = body?.error as ApiError
  expect(typeof error.message).toBe("string")
  expect(error.message.length).toBeGreaterThan(0)
  expect(typeof error.details).toBe("object")
  if (detailFields !== undefined) expect(Object.keys(error.details).sort()).toEqual([...detailFields].sort())
  return error
}

/** `+966 50-123 4567` for `+966501234567`: how people type numbers. */
export const spacedAndDashed = (e164: string) =>
  `${e164.slice(0, 4)} ${e164.slice(4, 6)}-${e164.slice(6, 9)} ${e164.slice(9)}`

/** Asserts that a text is written in the language (Arabic script for ar, Latin letters and no Arabic for en). */
export const expectInLanguage = (text: unknown, language: Language) => {
  expect(typeof text).toBe("string")
  if (language === "ar") expect(text as string).toMatch(ARABIC)
  else {
    expect(text as string).toMatch(LATIN)
    expect(text as string).not.toMatch(ARABIC)
  }
}

export const requestBody = (
  overrides: Overrides<RequestBody<"/requests", "post">> = {}
): RequestBody<"/requests", "post"> => ({
  category: "phone",
  product_brand: "Apple",
  product_model: "iPhone 15 Pro",
  condition_pref: "used",
  budget_min: 3000,
  budget_max: 4500,
  location_district: "Al Olaya",
  location_city: "Riyadh",
  notes: "256 GB, any colour",
  ...overrides
})

export const offerBody = (
  requestId: string,
  overrides: Overrides<RequestBody<"/offers", "post">> = {}
): RequestBody<"/offers", "post"> => ({
  request_id: requestId,
  price: 4000,
  availability: "Available today",
  condition_notes: "Like new, battery 95%",
  warranty_notes: "3 months shop warranty",
  ...overrides
})

export const profileBody = (
  overrides: Overrides<RequestBody<"/seller-profiles", "post">> = {}
): RequestBody<"/seller-profiles", "post"> => ({
  business_name: "Olaya Mobiles",
  location_district: "Al Olaya",
  location_city: "Riyadh",
  bio: "New and used phones",
  ...overrides
})

export interface Seller extends SignedIn {
  readonly profileId: string
}

export type PostedRequest = ResponseData<"/requests", "post">
export type PostedOffer = ResponseData<"/offers", "post">
type AcceptedDeal = ResponseData<"/offers/{id}/accept", "post">["deal"]

export interface DealScene {
  readonly request: PostedRequest
  readonly offer: PostedOffer
  readonly deal: AcceptedDeal
}

/**
 * The marketplace driven through its REST API by named actors, signed in with the test server's fixture unless
 * told otherwise (a child process has none: `signInOverHttp`).
 */
export class Marketplace {
  private admin?: Promise<SignedIn>
  constructor(
    readonly server: TestServer,
    readonly api: Client,
    readonly adminPhone: string,
    private readonly signInWith: typeof signIn = signIn
  ) {}

  /** The administrator (signed in once). */
  adminUser(): Promise<SignedIn> {
    this.admin ??= this.signInWith(this.server, this.api, this.adminPhone)
    return this.admin
  }

  /** A new signed-in user with a name. */
  async buyer(name = "Buyer"): Promise<SignedIn> {
    const user = await this.signInWith(this.server, this.api, newPhone())
    expectStatus(await this.api.put("/users/me", { token: user.token, body: { name } }), 200, "PUT /users/me")
    return { ...user, user: { ...user.user, name } }
  }

  /** A user signed in with a given phone (e.g. a spare admin). */
  signInPhone(phone: string): Promise<SignedIn> {
    return this.signInWith(this.server, this.api, phone)
  }

  async createRequest(owner: SignedIn, overrides: Overrides<RequestBody<"/requests", "post">> = {}) {
    const body = expectStatus(
      await this.api.post("/requests", { token: owner.token, body: requestBody(overrides) }),
      201,
      "POST /requests"
    )
    return body.data
  }

  async apply(user: SignedIn, overrides: Overrides<RequestBody<"/seller-profiles", "post">> = {}) {
    const body = expectStatus(
      await this.api.post("/seller-profiles", { token: user.token, body: profileBody(overrides) }),
      201,
      "POST /seller-profiles"
    )
    return body.data
  }

  async approve(profileId: string) {
    const admin = await this.adminUser()
    const body = expectStatus(
      await this.api.put(`/admin/seller-profiles/${profileId}/approve`, { token: admin.token }),
      200,
      "PUT /admin/seller-profiles/{id}/approve"
    )
    return body.data
  }

  async pendingSeller(name = "Pending Seller"): Promise<Seller> {
    const user = await this.buyer(name)
    const profile = await this.apply(user)
    return { ...user, profileId: profile.id }
  }

  async approvedSeller(name = "Seller"): Promise<Seller> {
    const seller = await this.pendingSeller(name)
    await this.approve(seller.profileId)
    return seller
  }

  async report(reporter: SignedIn, reportedUserId: string, extra: Overrides<RequestBody<"/reports", "post">> = {}) {
    const body = expectStatus(
      await this.api.post("/reports", {
        token: reporter.token,
        body: { reported_user_id: reportedUserId, reason: "scam", description: "Asked for a transfer first", ...extra }
      }),
      201,
      "POST /reports"
    )
    return body.data
  }

  async resolve(reportId: string, action: "dismiss" | "warn" | "suspend_seller", notes?: string) {
    const admin = await this.adminUser()
    const body = expectStatus(
      await this.api.put(`/admin/reports/${reportId}/resolve`, {
        token: admin.token,
        body: notes === undefined ? { action } : { action, notes }
      }),
      200,
      "PUT /admin/reports/{id}/resolve"
    )
    return body.data
  }

  /** An approved seller who was then suspended through a report resolved with suspend_seller. */
  async suspendedSeller(name = "Suspended Seller"): Promise<Seller> {
    const seller = await this.approvedSeller(name)
    const reporter = await this.buyer("Reporter")
    const report = await this.report(reporter, seller.userId)
    await this.resolve(report.id, "suspend_seller", "Repeated scams")
    return seller
  }

  async offer(seller: SignedIn, requestId: string, overrides: Overrides<RequestBody<"/offers", "post">> = {}) {
    const body = expectStatus(
      await this.api.post("/offers", { token: seller.token, body: offerBody(requestId, overrides) }),
      201,
      "POST /offers"
    )
    return body.data
  }

  async accept(buyer: SignedIn, offerId: string) {
    const body = expectStatus(
      await this.api.post(`/offers/${offerId}/accept`, { token: buyer.token }),
      200,
      "POST /offers/{id}/accept"
    )
    return body.data.deal
  }

  async withdraw(seller: SignedIn, offerId: string) {
    return expectStatus(
      await this.api.delete(`/offers/${offerId}`, { token: seller.token }),
      200,
      "DELETE /offers/{id}"
    )
  }

  async close(owner: SignedIn, requestId: string) {
    const body = expectStatus(
      await this.api.put(`/requests/${requestId}/close`, { token: owner.token }),
      200,
      "PUT /requests/{id}/close"
    )
    return body.data
  }

  /** A new request of the buyer with a pending offer of the seller. */
  async pendingOffer(buyer: SignedIn, seller: SignedIn, overrides: Overrides<RequestBody<"/offers", "post">> = {}) {
    const request = await this.createRequest(buyer)
    const offer = await this.offer(seller, request.id, overrides)
    return { request, offer }
  }

  /** A new request of the buyer, an offer of the seller and the accepted deal. */
  async deal(buyer: SignedIn, seller: SignedIn): Promise<DealScene> {
    const { request, offer } = await this.pendingOffer(buyer, seller)
    const deal = await this.accept(buyer, offer.id)
    return { request, offer, deal }
  }

  async complete(buyer: SignedIn, dealId: string) {
    const body = expectStatus(
      await this.api.put(`/deals/${dealId}/complete`, { token: buyer.token }),
      200,
      "PUT /deals/{id}/complete"
    )
    return body.data
  }

  async cancel(buyer: SignedIn, dealId: string) {
    const body = expectStatus(
      await this.api.put(`/deals/${dealId}/cancel`, { token: buyer.token, body: { reason: "Changed my mind" } }),
      200,
      "PUT /deals/{id}/cancel"
    )
    return body.data
  }

  async completedDeal(buyer: SignedIn, seller: SignedIn): Promise<DealScene> {
    const scene = await this.deal(buyer, seller)
    await this.complete(buyer, scene.deal.id)
    return scene
  }

  async rate(buyer: SignedIn, dealId: string, rating: number) {
    const body = expectStatus(
      await this.api.post("/ratings", { token: buyer.token, body: { deal_id: dealId, rating, review_text: "Fine" } }),
      201,
      "POST /ratings"
    )
    return body.data
  }

  /** The conversation of an offer, as one of its parties finds it in GET /conversations/my. */
  async conversationOf(party: SignedIn, offerId: string) {
    const body = expectStatus(
      await this.api.get("/conversations/my?per_page=50", { token: party.token }),
      200,
      "GET /conversations/my"
    )
    const conversation = body.data.conversations.find((c) => c.offer_id === offerId)
    if (!conversation) throw new Error(`no conversation for offer ${offerId}: ${JSON.stringify(body)}`)
    return conversation
  }

  // Read-backs used to show that a refused write changed nothing.
  async requestDetail(user: SignedIn, requestId: string) {
    return expectStatus(await this.api.get(`/requests/${requestId}`, { token: user.token }), 200, "GET /requests/{id}")
      .data
  }
  async offersOf(user: SignedIn, requestId: string) {
    return expectStatus(
      await this.api.get(`/requests/${requestId}/offers`, { token: user.token }),
      200,
      "GET /requests/{id}/offers"
    ).data.offers
  }
  async myOffers(seller: SignedIn) {
    return expectStatus(await this.api.get("/offers/my?per_page=50", { token: seller.token }), 200, "GET /offers/my")
      .data.offers
  }
  async dealDetail(party: SignedIn, dealId: string) {
    return expectStatus(await this.api.get(`/deals/${dealId}`, { token: party.token }), 200, "GET /deals/{id}").data
  }
  async me(user: SignedIn) {
    return expectStatus(await this.api.get("/users/me", { token: user.token }), 200, "GET /users/me").data
  }
  /** Every report the admin list shows (all pages, at most 20 of 50). */
  async adminReports(query = "") {
    const admin = await this.adminUser()
    const reports: Array<ResponseData<"/admin/reports", "get">["reports"][number]> = []
    for (let page = 1; page <= 20; page++) {
      const body = expectStatus(
        await this.api.get(`/admin/reports?per_page=50&page=${page}${query}`, { token: admin.token }),
        200,
        "GET /admin/reports"
      )
      reports.push(...body.data.reports)
      if (page >= body.data.pagination.last_page) break
    }
    return reports
  }
  async adminReport(reportId: string) {
    const report = (await this.adminReports()).find((r) => r.id === reportId)
    if (!report) throw new Error(`report ${reportId} is not in GET /admin/reports`)
    return report
  }
  async pendingProfiles() {
    const admin = await this.adminUser()
    return expectStatus(
      await this.api.get("/admin/seller-profiles/pending?per_page=50", { token: admin.token }),
      200,
      "GET /admin/seller-profiles/pending"
    ).data.profiles
  }
}

/** The administrator of the marketplace suites (ADMIN_PHONE_NUMBERS of their server). */
export const ADMIN_PHONE = "+966551230000"

export const marketSettings = { ...relaxedLimits, adminPhoneNumbers: [ADMIN_PHONE] }

/** A server for a marketplace suite: relaxed rate limits and one admin phone number. */
export const useMarketServer = (backend: Backend) => useServer(backend, { settings: marketSettings })

export const aRequestBody = (
  overrides: Overrides<RequestBody<"/requests", "post">> = {}
): RequestBody<"/requests", "post"> => ({
  category: "phone",
  product_brand: "Apple",
  product_model: "iPhone 15",
  condition_pref: "used",
  budget_min: 1000,
  budget_max: 2000,
  location_district: "Al Olaya",
  location_city: "Riyadh",
  notes: "Blue if possible",
  ...overrides
})

export const anOfferBody = (
  requestId: string,
  overrides: Overrides<RequestBody<"/offers", "post">> = {}
): RequestBody<"/offers", "post"> => ({
  request_id: requestId,
  price: 1500,
  availability: "Today",
  condition_notes: "Like new",
  warranty_notes: "6 months",
  ...overrides
})

export const aProfileBody = (
  overrides: Overrides<RequestBody<"/seller-profiles", "post">> = {}
): RequestBody<"/seller-profiles", "post"> => ({
  business_name: "Riyadh Phones",
  location_district: "Al Malaz",
  location_city: "Riyadh",
  bio: "Used phones, checked and cleaned",
  ...overrides
})

/** Marketplace steps over HTTP that must succeed; each checks its status so a broken step fails loudly. */
export const market = (server: () => TestServer) => {
  const api = (): Client => client(server())
  let admin: SignedIn | undefined

  const expectStatus = <R extends { status: number; body: unknown }>(response: R, status: number, step: string): R => {
    expect(response.status, `${step}: ${JSON.stringify(response.body)}`).toBe(status)
    return response
  }

  const user = async (name?: string): Promise<SignedIn> => {
    const signed = await signIn(server(), api())
    if (name !== undefined)
      expectStatus(await api().put("/users/me", { token: signed.token, body: { name } }), 200, "name")
    return signed
  }

  const signInAdmin = async (): Promise<SignedIn> => {
    admin ??= await signIn(server(), api(), ADMIN_PHONE)
    return admin
  }

  /** A user who applied for a seller profile (pending). */
  const applicant = async (name?: string, profile: Overrides<RequestBody<"/seller-profiles", "post">> = {}) => {
    const signed = await user(name)
    const applied = expectStatus(
      await api().post("/seller-profiles", { token: signed.token, body: aProfileBody(profile) }),
      201,
      "apply"
    )
    return { ...signed, profileId: applied.body.data.id }
  }

  /** A user whose seller profile an admin approved. */
  const seller = async (name?: string, profile: Overrides<RequestBody<"/seller-profiles", "post">> = {}) => {
    const applied = await applicant(name, profile)
    const { token } = await signInAdmin()
    expectStatus(await api().put(`/admin/seller-profiles/${applied.profileId}/approve`, { token }), 200, "approve")
    return applied
  }

  const request = async (buyer: SignedIn, overrides: Overrides<RequestBody<"/requests", "post">> = {}) =>
    expectStatus(
      await api().post("/requests", { token: buyer.token, body: aRequestBody(overrides) }),
      201,
      "post request"
    ).body.data

  const offer = async (
    sellerUser: SignedIn,
    requestId: string,
    overrides: Overrides<RequestBody<"/offers", "post">> = {}
  ) =>
    expectStatus(
      await api().post("/offers", { token: sellerUser.token, body: anOfferBody(requestId, overrides) }),
      201,
      "offer"
    ).body.data

  const accept = async (buyer: SignedIn, offerId: string) =>
    expectStatus(await api().post(`/offers/${offerId}/accept`, { token: buyer.token }), 200, "accept").body.data.deal

  /** A deal between a fresh buyer and a fresh approved seller, in state `accepted`. */
  const deal = async () => {
    const buyer = await user("Buyer")
    const sellerUser = await seller("Seller")
    const posted = await request(buyer)
    const made = await offer(sellerUser, posted.id)
    const made_deal = await accept(buyer, made.id)
    return { buyer, seller: sellerUser, request: posted, offer: made, deal: made_deal }
  }

  const completedDeal = async () => {
    const made = await deal()
    expectStatus(await api().put(`/deals/${made.deal.id}/complete`, { token: made.buyer.token }), 200, "complete")
    return made
  }

  return { api, user, admin: signInAdmin, applicant, seller, request, offer, accept, deal, completedDeal, expectStatus }
}

export const keysOf = (value: object) => Object.keys(value).sort()

/** A buyer, an approved seller, and the conversation of the seller's offer on the buyer's request. */
export interface ChatScene {
  readonly buyer: SignedIn
  readonly seller: Seller
  readonly offer: PostedOffer
  readonly conversationId: string
}

/** The conversation of an offer, found through the party's own list. */
export const conversationOfOffer = async (api: Client, party: SignedIn, offerId: string): Promise<string> => {
  const list = expectStatus(
    await api.get("/conversations/my?per_page=50", { token: party.token }),
    200,
    "GET /conversations/my"
  )
  const found = list.data.conversations.find((c) => c.offer_id === offerId)
  if (!found) throw new Error(`no conversation for offer ${offerId}: ${JSON.stringify(list.data)}`)
  return found.id
}

/** Makes the buyer and the seller (unless given) and opens their conversation through POST /offers. */
export const chatScene = async (
  m: Marketplace,
  parties: { readonly buyer?: SignedIn; readonly seller?: Seller } = {}
): Promise<ChatScene> => {
  const buyer = parties.buyer ?? (await m.buyer("Buyer"))
  const seller = parties.seller ?? (await m.approvedSeller("Seller"))
  const { offer } = await m.pendingOffer(buyer, seller)
  return { buyer, seller, offer, conversationId: await conversationOfOffer(m.api, buyer, offer.id) }
}

/** Sends a message over REST and answers the stored message. */
export const postMessage = async (api: Client, sender: SignedIn, conversationId: string, text: string) =>
  expectStatus(
    await api.post(`/conversations/${conversationId}/messages`, { token: sender.token, body: { message_text: text } }),
    201,
    "POST /conversations/{id}/messages"
  ).data
