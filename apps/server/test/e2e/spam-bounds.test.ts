import { describe, expect, it } from "vitest"
import { expectError, market, marketSettings } from "../support/fixtures.js"
import { bothBackends, type Response, type SignedIn, useServerWithDatabase } from "../support/harness.js"

/*
 * What one user can send another is bounded (docs/DECISIONS.md, "Spam bounds"): one pending report per
 * reporter, reported user and deal; `offer_created` once an hour per buyer, request and seller however often
 * the seller withdraws and offers again; `request_match` at most REQUEST_MATCH_PUSHES_PER_HOUR an hour per seller,
 * the rest in one summary push. "No push" is checked after a later push (queued after it) arrived.
 */

const within = { timeout: 60_000, interval: 20 }
const PUSHES_PER_HOUR = 3

describe.each(bothBackends)("spam bounds on %s", (backend) => {
  const { server } = useServerWithDatabase(backend, {
    settings: { ...marketSettings, requestMatchPushesPerHour: PUSHES_PER_HOUR }
  })
  const m = market(server)

  const fileReport = (reporter: SignedIn, body: Record<string, unknown>, language = "en") =>
    m.api().raw.post("/reports", { token: reporter.token, body, headers: { "accept-language": language } })
  const pendingReportsBy = async (reporter: SignedIn) => {
    const { token } = await m.admin()
    const listed = m.expectStatus(
      await m.api().get("/admin/reports?status=pending&per_page=50", { token }),
      200,
      "admin reports"
    )
    return listed.body.data.reports.filter((report) => report.reporter.id === reporter.userId)
  }
  const device = async (user: SignedIn) =>
    m.expectStatus(
      await m.api().post("/device-tokens", {
        token: user.token,
        body: { platform: "android", push_token: `spam-${backend}-${user.userId}` }
      }),
      201,
      "register device"
    )
  const language = async (user: SignedIn, lang: "ar" | "en") =>
    m.expectStatus(await m.api().put("/users/me", { token: user.token, body: { language: lang } }), 200, "language")
  const pushes = (user: SignedIn, type: string) =>
    server()
      .pushes.to(user.userId)
      .filter((push) => push.type === type)

  describe("reports", () => {
    it("25 identical reports: one 201, then 422 REPORT_ALREADY_PENDING in the caller's language, nothing stored", async () => {
      const reporter = await m.user("Reporter")
      const target = await m.seller("Target")
      const body = { reported_user_id: target.userId, reason: "scam", description: "Same thing again" }

      const statuses: Array<number> = []
      for (let i = 0; i < 25; i++) statuses.push((await fileReport(reporter, body)).status)

      expect(statuses.filter((status) => status === 201)).toHaveLength(1)
      expect(statuses.filter((status) => status === 422)).toHaveLength(24)
      const english = expectError(await fileReport(reporter, body), 422, "REPORT_ALREADY_PENDING")
      expect(english.message).toBe("You already reported this user and your report is still pending")
      const arabic = expectError(await fileReport(reporter, body, "ar"), 422, "REPORT_ALREADY_PENDING")
      expect(arabic.message).toBe("لديك بلاغ سابق عن هذا المستخدم لا يزال قيد المراجعة")
      expect(await pendingReportsBy(reporter)).toHaveLength(1)
    })

    it("one pending report per deal: another deal, no deal, or the other party reporting back are reports of their own", async () => {
      const { buyer, seller, deal } = await m.deal()
      const aboutDeal = { reported_user_id: seller.userId, deal_id: deal.id, reason: "no_show" }
      m.expectStatus(await fileReport(buyer, aboutDeal), 201, "about the deal")
      expectError(await fileReport(buyer, { ...aboutDeal, reason: "rude" }), 422, "REPORT_ALREADY_PENDING")
      m.expectStatus(await fileReport(buyer, { reported_user_id: seller.userId, reason: "rude" }), 201, "no deal")
      expectError(
        await fileReport(buyer, { reported_user_id: seller.userId, reason: "scam" }),
        422,
        "REPORT_ALREADY_PENDING"
      )
      m.expectStatus(
        await fileReport(seller, { reported_user_id: buyer.userId, deal_id: deal.id, reason: "rude" }),
        201,
        "the seller reports back"
      )
      expect(await pendingReportsBy(buyer)).toHaveLength(2)
    })

    it("allows a new report once the pending one is resolved", async () => {
      const reporter = await m.user("Reporter")
      const target = await m.seller("Target")
      const body = { reported_user_id: target.userId, reason: "fake_offer" }
      const first = m.expectStatus(await fileReport(reporter, body), 201, "first").body.data
      expectError(await fileReport(reporter, body), 422, "REPORT_ALREADY_PENDING")
      for (const action of ["dismiss", "warn"] as const) {
        const pending = (await pendingReportsBy(reporter))[0]!
        m.expectStatus(
          await m
            .api()
            .put(`/admin/reports/${pending.id}/resolve`, { token: (await m.admin()).token, body: { action } }),
          200,
          action
        )
        m.expectStatus(await fileReport(reporter, body), 201, `after ${action}`)
      }
      expect((await pendingReportsBy(reporter)).map((report) => report.id)).not.toContain(first.id)
    })

    it.runIf(backend === "postgres")("8 identical reports at once, 4 rounds: exactly one 201 each round", async () => {
      const reporter = await m.user("Racer")
      for (let round = 0; round < 4; round++) {
        const target = await m.seller(`Raced ${round}`)
        const responses: ReadonlyArray<Response> = await Promise.all(
          Array.from({ length: 8 }, () => fileReport(reporter, { reported_user_id: target.userId, reason: "scam" }))
        )
        const shown = JSON.stringify(responses.map((r) => [r.status, r.body?.error?.code]))
        expect(
          responses.filter((r) => r.status === 201),
          shown
        ).toHaveLength(1)
        expect(new Set(responses.filter((r) => r.status !== 201).map((r) => r.body?.error?.code)), shown).toEqual(
          new Set(["REPORT_ALREADY_PENDING"])
        )
        expect((await pendingReportsBy(reporter)).filter((r) => r.reported_user.id === target.userId)).toHaveLength(1)
      }
    })
  })

  describe("offer_created", () => {
    it("ten offer → withdraw cycles push the buyer once; the first at once, the next after an hour", async () => {
      const buyer = await m.user("Buyer")
      const seller = await m.seller("Cycling")
      const other = await m.seller("Other")
      await device(buyer)
      const posted = await m.request(buyer)
      const fromSeller = (who: SignedIn) =>
        pushes(buyer, "offer_created").filter((push) =>
          who === seller ? offersOfSeller.has(push.data.offer_id ?? "") : !offersOfSeller.has(push.data.offer_id ?? "")
        )
      const offersOfSeller = new Set<string>()
      const cycle = async () => {
        const offer = await m.offer(seller, posted.id)
        offersOfSeller.add(offer.id)
        m.expectStatus(await m.api().delete(`/offers/${offer.id}`, { token: seller.token }), 200, "withdraw")
        return offer
      }

      const first = await cycle()
      await expect
        .poll(() => pushes(buyer, "offer_created").map((push) => push.data.offer_id), within)
        .toEqual([first.id])
      for (let i = 1; i < 10; i++) await cycle()
      // Another seller's offer is pushed: the cycles' pushes, queued before it, were decided.
      const witness = await m.offer(other, posted.id)
      await expect.poll(() => fromSeller(other).map((push) => push.data.offer_id), within).toEqual([witness.id])
      expect(fromSeller(seller)).toHaveLength(1)

      server().clock.advance("61 minutes")
      const later = await cycle()
      await expect
        .poll(() => fromSeller(seller).map((push) => push.data.offer_id), within)
        .toEqual([first.id, later.id])
    })
  })

  describe("request_match", () => {
    const alertedSeller = async (name: string, city: string, lang: "ar" | "en") => {
      const seller = await m.seller(name)
      await device(seller)
      await language(seller, lang)
      m.expectStatus(
        await m.api().post("/seller-profiles/me/alerts", {
          token: seller.token,
          body: { categories: ["phone"], cities: [city] }
        }),
        201,
        "rule"
      )
      return seller
    }
    /** A request in a city only `witness` watches: once its push arrives, every request before it was matched. */
    const settled = async (witness: SignedIn, buyer: SignedIn, city: string) => {
      const marker = await m.request(buyer, { location_city: city })
      await expect
        .poll(() => pushes(witness, "request_match").some((push) => push.data.request_id === marker.id), within)
        .toBe(true)
    }

    it(`fifteen create → close cycles push a seller ${PUSHES_PER_HOUR} times; past the limit, one summary in their language`, async () => {
      const city = `Spamville-${backend}`
      const witnessCity = `Witness-${backend}`
      const buyer = await m.user("Buyer")
      const english = await alertedSeller("English", city, "en")
      const arabic = await alertedSeller("Arabic", city, "ar")
      const witness = await alertedSeller("Witness", witnessCity, "en")

      // Each request is closed once the matcher has seen it (a request closed before that matches nobody).
      const posted = []
      for (let i = 0; i < 15; i++) posted.push(await m.request(buyer, { location_city: city }))
      await settled(witness, buyer, witnessCity)
      for (const request of posted)
        m.expectStatus(await m.api().put(`/requests/${request.id}/close`, { token: buyer.token }), 200, "close")
      for (const seller of [english, arabic])
        await expect.poll(() => pushes(seller, "request_match").length, within).toBe(PUSHES_PER_HOUR)
      for (const seller of [english, arabic]) expect(pushes(seller, "request_match")).toHaveLength(PUSHES_PER_HOUR)

      // The hour passes: the held matches are of closed requests, so no summary.
      server().clock.advance("61 minutes")
      await settled(witness, buyer, witnessCity)
      for (const seller of [english, arabic]) expect(pushes(seller, "request_match_summary")).toEqual([])

      // A new hour: the limit again, and the matches past it in one summary an hour later.
      const active = []
      for (let i = 0; i < PUSHES_PER_HOUR + 2; i++) active.push(await m.request(buyer, { location_city: city }))
      for (const seller of [english, arabic])
        await expect.poll(() => pushes(seller, "request_match").length, within).toBe(2 * PUSHES_PER_HOUR)
      await settled(witness, buyer, witnessCity)
      for (const seller of [english, arabic]) {
        expect(pushes(seller, "request_match")).toHaveLength(2 * PUSHES_PER_HOUR)
        expect(pushes(seller, "request_match_summary")).toEqual([])
      }
      server().clock.advance("61 minutes")
      await expect
        .poll(() => pushes(english, "request_match_summary"), within)
        .toEqual([
          expect.objectContaining({
            title: "New requests for you",
            body: "2 more requests match your alerts",
            data: { match_count: "2" }
          })
        ])
      await expect
        .poll(() => pushes(arabic, "request_match_summary"), within)
        .toEqual([expect.objectContaining({ title: "طلبات جديدة تناسبك", body: "طلبان آخران يطابقان تنبيهاتك" })])
      for (const seller of [english, arabic]) expect(pushes(seller, "request_match")).toHaveLength(2 * PUSHES_PER_HOUR)
      expect(active).toHaveLength(PUSHES_PER_HOUR + 2)
    })
  })
})
