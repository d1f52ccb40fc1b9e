import type { TestServer } from "@talab/testkit"
import { expect } from "vitest"
import { type Backend, type Client, client, relaxedLimits, type SignedIn, signIn, useServer } from "./harness.js"

/** The administrator of the marketplace suites (ADMIN_PHONE_NUMBERS of their server). */
export const ADMIN_PHONE = "+966551230000"

export const marketSettings = { ...relaxedLimits, adminPhoneNumbers: [ADMIN_PHONE] }

/** A server for a marketplace suite: relaxed rate limits and one admin phone number. */
export const useMarketServer = (backend: Backend) => useServer(backend, { settings: marketSettings })

export const aRequestBody = (overrides: Record<string, unknown> = {}) => ({
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

export const anOfferBody = (requestId: string, overrides: Record<string, unknown> = {}) => ({
  request_id: requestId,
  price: 1500,
  availability: "Today",
  condition_notes: "Like new",
  warranty_notes: "6 months",
  ...overrides
})

export const aProfileBody = (overrides: Record<string, unknown> = {}) => ({
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

  const expectStatus = <R extends { status: number; body: any }>(response: R, status: number, step: string): R => {
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
  const applicant = async (name?: string, profile: Record<string, unknown> = {}) => {
    const signed = await user(name)
    const applied = expectStatus(
      await api().post("/seller-profiles", { token: signed.token, body: aProfileBody(profile) }),
      201,
      "apply"
    )
    return { ...signed, profileId: applied.body.data.id as string }
  }

  /** A user whose seller profile an admin approved. */
  const seller = async (name?: string, profile: Record<string, unknown> = {}) => {
    const applied = await applicant(name, profile)
    const { token } = await signInAdmin()
    expectStatus(await api().put(`/admin/seller-profiles/${applied.profileId}/approve`, { token }), 200, "approve")
    return applied
  }

  const request = async (buyer: SignedIn, overrides: Record<string, unknown> = {}) =>
    expectStatus(
      await api().post("/requests", { token: buyer.token, body: aRequestBody(overrides) }),
      201,
      "post request"
    ).body.data

  const offer = async (sellerUser: SignedIn, requestId: string, overrides: Record<string, unknown> = {}) =>
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

/** An id nobody has. */
export const unknownId = "00000000-0000-4000-8000-000000000000"

/** The error envelope's code, with the status checked. */
export const expectError = (response: { status: number; body: any }, status: number, code: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status)
  expect(response.body.success).toBe(false)
  expect(response.body.error.code).toBe(code)
  expect(typeof response.body.error.message).toBe("string")
  return response.body.error as { code: string; message: string; details: Record<string, Array<string>> }
}

export const keysOf = (value: object) => Object.keys(value).sort()

export const isoTimestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/
