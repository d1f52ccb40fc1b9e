import { beforeAll, describe, expect, it } from "vitest"
import { conversationOfOffer, Marketplace, marketplaceSettings } from "../support/fixtures.js"
import { client, newPhone, type Response, type SignedIn, useServer } from "../support/harness.js"

/*
 * Bargaining races, settled by the request's and the offer's row locks: every move locks the request, then the
 * offer, then its conversation, so each sees the others' committed result. PostgreSQL only (PGlite is one
 * connection, nothing overlaps there). Each race sends ATTEMPTS calls at once, a few rounds; the outcome is read
 * back through the API: exactly one order won, and an accepted price is the one of the revision the accept named.
 */

const ATTEMPTS = 20
const ROUNDS = 2

const show = (responses: ReadonlyArray<Response>) =>
  JSON.stringify(responses.map((r) => [r.status, r.body?.error?.code ?? r.body?.data?.revision]))

describe("bargaining races on postgres", () => {
  const adminPhone = newPhone()
  const server = useServer("postgres", marketplaceSettings([adminPhone]))
  let m: Marketplace
  let buyer: SignedIn
  let seller: SignedIn
  beforeAll(async () => {
    m = new Marketplace(server(), client(server()), adminPhone)
    buyer = await m.buyer("Racing Buyer")
    seller = await m.approvedSeller("Racing Seller")
  }, 120_000)

  const revise = (offerId: string, price: number) =>
    m.api.patch(`/offers/${offerId}`, { token: seller.token, body: { price } })
  const accept = (offerId: string, expectedRevision?: number) =>
    m.api.post(`/offers/${offerId}/accept`, {
      token: buyer.token,
      ...(expectedRevision === undefined ? {} : { body: { expected_revision: expectedRevision } })
    })
  const counter = (offerId: string, price: number) =>
    m.api.post(`/offers/${offerId}/counter`, { token: buyer.token, body: { price } })
  const historyOf = async (offerId: string) =>
    (await m.api.get(`/offers/${offerId}/history`, { token: buyer.token })).body.data.events
  const messagesOf = async (offerId: string) => {
    const conversationId = await conversationOfOffer(m.api, buyer, offerId)
    const page = (await m.api.get(`/conversations/${conversationId}/messages?limit=100`, { token: buyer.token })).body
      .data.messages
    return [...page].sort((a, b) => a.seq - b.seq)
  }
  const dealOf = async (dealId: string) => (await m.api.get(`/deals/${dealId}`, { token: buyer.token })).body.data

  /** Nothing but the answers a move may give: no 5xx, no other code. */
  const expectOnly = (responses: ReadonlyArray<Response>, allowed: ReadonlyArray<number | string>) => {
    for (const r of responses) {
      expect(allowed, show(responses)).toContain(r.status < 400 ? r.status : r.body?.error?.code)
    }
  }

  /**
   * Revisions and accepts naming `named` at once: either an accept won before any revision (the deal is at the
   * named revision's price, and every revision after it was refused), or revisions won first and every accept was
   * refused OFFER_CHANGED. The prices of the revisions that won are numbered without gaps, in the order they won.
   */
  const reviseAgainstAccept = async (offerId: string, named: number | undefined, priceAtNamed: number, before = 0) => {
    const revisions = Array.from({ length: ATTEMPTS / 2 }, (_, i) => 2000 + i)
    const [revised, accepted] = await Promise.all([
      Promise.all(revisions.map((price) => revise(offerId, price))),
      Promise.all(revisions.map(() => accept(offerId, named)))
    ])
    const responses: ReadonlyArray<Response> = [...revised, ...accepted]
    expectOnly(revised, [200, "OFFER_NOT_PENDING"])
    expectOnly(accepted, [200, "OFFER_CHANGED", "OFFER_ALREADY_ACCEPTED", "REQUEST_NOT_ACTIVE", "OFFER_NOT_PENDING"])
    const wins = accepted.filter((r) => r.status === 200)
    expect(wins.length, show(responses)).toBeLessThanOrEqual(1)
    const revisionsWon = revised.filter((r) => r.status === 200).map((r) => r.body.data)
    const history = await historyOf(offerId)
    const shown = new Map<number, number>(
      history.filter((e) => e.type === "created" || e.type === "revised").map((e) => [e.revision, e.price])
    )
    for (const won of revisionsWon) expect(shown.get(won.revision)).toBe(won.price)
    if (wins.length === 1) {
      const deal = await dealOf(wins[0]!.body.data.deal.id)
      const expected = named ?? deal.offer.revision
      expect(deal.offer.revision).toBe(expected)
      expect(deal.offer.price).toBe(shown.get(expected))
      if (named !== undefined) expect(deal.offer.price).toBe(priceAtNamed)
      expect(history.at(-1)).toMatchObject({ type: "accepted", revision: expected, price: deal.offer.price })
      // Nothing was revised after the accept.
      expect(Math.max(...shown.keys())).toBe(expected)
    } else {
      expect(
        accepted.every((r) => r.body?.error?.code === "OFFER_CHANGED"),
        show(responses)
      ).toBe(true)
      expect(revisionsWon.length).toBe(ATTEMPTS / 2)
    }
    const messages = await messagesOf(offerId)
    expect(messages.map((msg) => msg.seq)).toEqual(messages.map((_, i) => i + 1))
    expect(messages.filter((msg) => msg.kind === "revision").length).toBe(before + revisionsWon.length)
  }

  it(`${ATTEMPTS} at once: revisions against accepts naming the revision seen`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { offer } = await m.pendingOffer(buyer, seller, { price: 1500 })
      await reviseAgainstAccept(offer.id, 1, 1500)
    }
  })

  it(`${ATTEMPTS} at once: revisions against accepts naming no revision take the price of the revision accepted`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { offer } = await m.pendingOffer(buyer, seller, { price: 1500 })
      await reviseAgainstAccept(offer.id, undefined, 1500)
    }
  })

  it(`${ATTEMPTS} at once: accepts with the current revision against revisions of a revised offer`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { offer } = await m.pendingOffer(buyer, seller, { price: 1500 })
      const first = await revise(offer.id, 1450)
      expect(first.status).toBe(200)
      await reviseAgainstAccept(offer.id, 2, 1450, 1)
    }
  })

  it(`${ATTEMPTS} revisions at once: each its own revision, the last one standing`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { offer, request } = await m.pendingOffer(buyer, seller, { price: 1500 })
      const prices = Array.from({ length: ATTEMPTS }, (_, i) => 3000 + i)
      const responses = await Promise.all(prices.map((price) => revise(offer.id, price)))
      expectOnly(responses, [200])
      const revisions = responses.map((r) => r.body.data.revision).sort((a, b) => a - b)
      expect(revisions).toEqual(prices.map((_, i) => i + 2))
      const last = responses.find((r) => r.body.data.revision === ATTEMPTS + 1)!.body.data
      const listed = (await m.offersOf(buyer, request.id)).find((o) => o.id === offer.id)!
      expect(listed).toMatchObject({ price: last.price, revision: ATTEMPTS + 1 })
      const history = await historyOf(offer.id)
      expect(history.map((e) => e.revision)).toEqual([1, ...revisions])
      for (const r of responses) {
        expect(history.find((e) => e.revision === r.body.data.revision)?.price).toBe(r.body.data.price)
      }
      const messages = await messagesOf(offer.id)
      expect(messages.map((msg) => [msg.seq, msg.kind])).toEqual(revisions.map((_, i) => [i + 1, "revision"]))
    }
  })

  it(`${ATTEMPTS} at once: counters against withdrawals`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { offer } = await m.pendingOffer(buyer, seller, { price: 1500 })
      const half = ATTEMPTS / 2
      const responses = await Promise.all([
        ...Array.from({ length: half }, (_, i) => counter(offer.id, 1000 + i)),
        ...Array.from({ length: half }, () => m.api.delete(`/offers/${offer.id}`, { token: seller.token }))
      ])
      const counters = responses.slice(0, half)
      const withdrawals = responses.slice(half)
      expectOnly(counters, [201, "OFFER_NOT_PENDING", "COUNTER_LIMIT_REACHED"])
      expectOnly(withdrawals, [200, "OFFER_NOT_PENDING"])
      expect(withdrawals.filter((r) => r.status === 200).length, show(responses)).toBe(1)
      const countersWon = counters.filter((r) => r.status === 201)
      expect(countersWon.length).toBeLessThanOrEqual(3)
      const history = await historyOf(offer.id)
      // Every counter that won came before the withdrawal; none after it.
      expect(history.map((e) => e.type)).toEqual(["created", ...countersWon.map(() => "countered"), "withdrawn"])
      expect(
        history
          .filter((e) => e.type === "countered")
          .map((e) => e.price)
          .sort()
      ).toEqual(countersWon.map((r) => r.body.data.price).sort())
      const messages = await messagesOf(offer.id)
      expect(messages.map((msg) => [msg.seq, msg.kind])).toEqual(countersWon.map((_, i) => [i + 1, "counter"]))
    }
  })
})
