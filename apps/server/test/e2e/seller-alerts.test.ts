import { describe, expect, it } from "vitest"
import { expectError, market, marketSettings } from "../support/fixtures.js"
import { bothBackends, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import { connectAs } from "../support/ws-client.js"

/*
 * Seller alerts (docs/DECISIONS.md, "Seller alerts for matching requests"): approved sellers keep up to 20
 * rules; a new request matching one sends the seller one `request_match` push in their language and an
 * `event` frame on their user channel; quiet hours hold the pushes and send one summary when they end.
 * "No push" is checked after a later request's push arrived: the matcher takes requests in creation order.
 */

const within = { timeout: 5_000, interval: 20 }
const alerts = "/seller-profiles/me/alerts"

describe.each(bothBackends)("seller alerts on %s", (backend) => {
  const { server, databaseUrl } = useServerWithDatabase(backend, { settings: marketSettings })
  const m = market(server)

  const rule = async (seller: SignedIn, body: Record<string, unknown>) =>
    m.expectStatus(await m.api().raw.post(alerts, { token: seller.token, body }), 201, "create rule").body.data
  const device = async (user: SignedIn) =>
    m.expectStatus(
      await m.api().post("/device-tokens", {
        token: user.token,
        body: { platform: "android", push_token: `alerts-${backend}-${user.userId}` }
      }),
      201,
      "register device"
    )
  const language = async (user: SignedIn, lang: "ar" | "en") =>
    m.expectStatus(await m.api().put("/users/me", { token: user.token, body: { language: lang } }), 200, "language")
  const pushes = (user: SignedIn, type = "request_match") =>
    server()
      .pushes.to(user.userId)
      .filter((push) => push.type === type)
  const alertedSeller = async (name: string, body: Record<string, unknown>, lang: "ar" | "en" = "en") => {
    const seller = await m.seller(name)
    await device(seller)
    await language(seller, lang)
    await rule(seller, body)
    return seller
  }
  /** A seller alerted about every phone request in `city`: their push shows the matcher got past earlier requests. */
  const witnessFor = async (city: string) => alertedSeller("Witness", { categories: ["phone"], cities: [city] })
  const settled = async (witness: SignedIn, buyer: SignedIn, city: string) => {
    const marker = await m.request(buyer, { location_city: city })
    await expect.poll(() => pushes(witness).some((p) => p.data.request_id === marker.id), within).toBe(true)
  }

  it("keeps rules: create (201), list newest first, delete; at most 20; another seller's rule id is 404", async () => {
    const seller = await m.seller("Rules")
    const first = await rule(seller, {
      categories: ["phone", "phone"],
      cities: ["Riyadh", " Jeddah "],
      price_max: 3000
    })
    expect(first).toMatchObject({
      categories: ["phone"],
      cities: ["Riyadh", "Jeddah"],
      price_min: null,
      price_max: 3000
    })
    for (let i = 1; i < 20; i++) await rule(seller, { categories: ["accessory"], cities: [`City ${i}`] })
    const listed = m.expectStatus(await m.api().get(alerts, { token: seller.token }), 200, "list").body.data.alerts
    expect(listed).toHaveLength(20)
    expect(listed.at(-1)!.id).toBe(first.id)

    const refused = await m
      .api()
      .post(alerts, { token: seller.token, body: { categories: ["phone"], cities: ["Dammam"] } })
    expectError(refused, 422, "ALERT_RULE_LIMIT_REACHED")
    expect(refused.body.error.message).toContain("20")

    const other = await m.seller("Other")
    expectError(await m.api().delete(`${alerts}/${first.id}`, { token: other.token }), 404, "NOT_FOUND")
    m.expectStatus(await m.api().delete(`${alerts}/${first.id}`, { token: seller.token }), 200, "delete")
    expectError(await m.api().delete(`${alerts}/${first.id}`, { token: seller.token }), 404, "NOT_FOUND")
    expectError(await m.api().delete(`${alerts}/not-a-uuid`, { token: seller.token }), 404, "NOT_FOUND")
    await rule(seller, { categories: ["phone"], cities: ["Dammam"] })
  })

  it("refuses bad rules and settings with 400 VALIDATION_ERROR naming each field, and stores nothing", async () => {
    const seller = await m.seller("Validation")
    const bad = [
      [{ categories: [], cities: ["Riyadh"] }, "categories"],
      [{ categories: ["car"], cities: ["Riyadh"] }, "categories.0"],
      [{ categories: ["phone"], cities: [] }, "cities"],
      [{ categories: ["phone"], cities: Array.from({ length: 21 }, (_, i) => `C${i}`) }, "cities"],
      [{ categories: ["phone"], cities: ["Riyadh"], price_min: 500, price_max: 100 }, "price_max"],
      [{ categories: ["phone"], cities: ["Riyadh"], price_min: -1 }, "price_min"]
    ] as const
    for (const [body, field] of bad) {
      const response = await m.api().raw.post(alerts, { token: seller.token, body })
      expectError(response, 400, "VALIDATION_ERROR")
      expect(Object.keys(response.body.error.details), JSON.stringify(body)).toContain(field)
    }
    expect(m.expectStatus(await m.api().get(alerts, { token: seller.token }), 200, "list").body.data.alerts).toEqual([])

    const settings = "/seller-profiles/me/alert-settings"
    for (const body of [
      { quiet_from: "22:00", quiet_to: "07:00", time_zone: "Mars/Olympus" },
      { quiet_from: "25:00", quiet_to: "07:00", time_zone: "Asia/Riyadh" },
      { quiet_from: "22:00", quiet_to: null, time_zone: "Asia/Riyadh" },
      { quiet_from: "07:00", quiet_to: "07:00", time_zone: "Asia/Riyadh" }
    ]) {
      expectError(await m.api().put(settings, { token: seller.token, body }), 400, "VALIDATION_ERROR")
    }
    const none = { quiet_from: null, quiet_to: null, time_zone: null }
    expect(m.expectStatus(await m.api().get(settings, { token: seller.token }), 200, "get").body.data).toEqual(none)
    const quiet = { quiet_from: "22:00", quiet_to: "07:00", time_zone: "Asia/Riyadh" }
    expect(
      m.expectStatus(await m.api().put(settings, { token: seller.token, body: quiet }), 200, "put").body.data
    ).toEqual(quiet)
    expect(m.expectStatus(await m.api().get(settings, { token: seller.token }), 200, "get").body.data).toEqual(quiet)
  })

  it("alerts each matching approved seller once, in their language, never the buyer, a suspended seller or a non-match", async () => {
    const city = `Khobar-${backend}`
    const buyer = await m.user("Buyer")
    const english = await alertedSeller("English", {
      categories: ["phone"],
      cities: [city],
      price_min: 1000,
      price_max: 3000
    })
    await rule(english, { categories: ["phone", "accessory"], cities: [city.toUpperCase()] })
    const arabic = await alertedSeller("Arabic", { categories: ["phone"], cities: [city] }, "ar")
    const wrongCategory = await alertedSeller("Accessories", { categories: ["accessory"], cities: [city] })
    const wrongCity = await alertedSeller("Elsewhere", { categories: ["phone"], cities: ["Abha"] })
    const tooCheap = await alertedSeller("Cheap", { categories: ["phone"], cities: [city], price_max: 500 })
    const tooDear = await alertedSeller("Dear", { categories: ["phone"], cities: [city], price_min: 5000 })
    const suspended = await alertedSeller("Suspended", { categories: ["phone"], cities: [city] })
    const reporter = await m.user("Reporter")
    const report = await m.api().post("/reports", {
      token: reporter.token,
      body: { reported_user_id: suspended.userId, reason: "scam" }
    })
    m.expectStatus(
      await m.api().put(`/admin/reports/${report.body.data.id}/resolve`, {
        token: (await m.admin()).token,
        body: { action: "suspend_seller" }
      }),
      200,
      "suspend"
    )
    // A seller posting a request as a buyer is not alerted about it.
    const sellingBuyer = await alertedSeller("Seller buying", { categories: ["phone"], cities: [city] })

    const socket = await connectAs(server().wsUrl, english.token)
    const posted = await m.request(buyer, { location_city: ` ${city} `, budget_min: 1000, budget_max: 2000 })
    const own = await m.request(sellingBuyer, { location_city: city })

    // Two matching rules, two requests: one push per request.
    await expect.poll(() => pushes(english).length, within).toBe(2)
    expect(pushes(english).find((p) => p.data.request_id === posted.id)).toMatchObject({
      title: "A new request for you",
      body: `A buyer wants Apple iPhone 15 in ${city}, budget 1,000 - 2,000`,
      data: { request_id: posted.id }
    })
    await expect.poll(() => pushes(arabic).length, within).toBe(2)
    expect(pushes(arabic)[0]!.title).toBe("طلب جديد يناسبك")
    const frame = await socket.next((f) => f.type === "event")
    expect(frame).toEqual({
      type: "event",
      channel: `user.${english.userId}`,
      event: "request_match",
      data: {
        request_id: posted.id,
        category: "phone",
        product_brand: posted.product_brand,
        product_model: posted.product_model,
        budget_min: 1000,
        budget_max: 2000,
        location_city: posted.location_city,
        location_district: posted.location_district,
        created_at: posted.created_at
      }
    })
    socket.ws.close()

    await settled(arabic, buyer, city)
    expect(pushes(english).filter((p) => p.data.request_id === posted.id)).toHaveLength(1)
    expect(pushes(english).filter((p) => p.data.request_id === own.id)).toHaveLength(1)
    for (const silent of [wrongCategory, wrongCity, tooCheap, tooDear, suspended]) expect(pushes(silent)).toEqual([])
    expect(pushes(sellingBuyer).map((p) => p.data.request_id)).not.toContain(own.id)
  })

  it("holds alerts in quiet hours and sends one summary when they end (moved clock)", async () => {
    const city = `Taif-${backend}`
    const buyer = await m.user("Buyer")
    const quiet = await alertedSeller("Quiet", { categories: ["phone"], cities: [city] })
    const witness = await witnessFor(city)
    const riyadhNow = new Date(server().clock.now().getTime() + 3 * 3_600_000)
    const at = (hoursFromNow: number) => {
      const d = new Date(riyadhNow.getTime() + hoursFromNow * 3_600_000)
      return `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`
    }
    m.expectStatus(
      await m.api().put("/seller-profiles/me/alert-settings", {
        token: quiet.token,
        body: { quiet_from: at(-1), quiet_to: at(1), time_zone: "Asia/Riyadh" }
      }),
      200,
      "quiet hours"
    )
    const socket = await connectAs(server().wsUrl, quiet.token)
    const first = await m.request(buyer, { location_city: city })
    await m.request(buyer, { location_city: city })
    await settled(witness, buyer, city)
    expect(server().pushes.to(quiet.userId)).toEqual([])
    // The socket still hears of the request: quiet hours hold pushes only.
    expect((await socket.next((f) => f.type === "event")).data.request_id).toBe(first.id)
    socket.ws.close()

    server().clock.advance("61 minutes")

    await expect.poll(() => pushes(quiet, "request_match_summary").length, within).toBe(1)
    expect(pushes(quiet, "request_match_summary")[0]).toMatchObject({
      title: "New requests for you",
      data: { match_count: "3" }
    })
    expect(pushes(quiet)).toEqual([])
  })

  it.runIf(backend === "postgres")(
    "matches through the GIN index among thousands of rules, exactly the right sellers",
    async () => {
      const url = databaseUrl()!
      const city = "Najran"
      const buyer = await m.user("Buyer")
      const sellers = [await alertedSeller("Many 1", { categories: ["accessory"], cities: ["Elsewhere"] })]
      sellers.push(await alertedSeller("Many 2", { categories: ["accessory"], cities: ["Elsewhere"] }))
      const witness = await witnessFor("Najran-witness")
      // 3,000 rules of the two sellers; only those in Najran, for phones, with a price range meeting 1000-2000 match.
      await runSql(
        url,
        (sql) =>
          sql`INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, price_min, price_max, created_at)
          SELECT gen_random_uuid(), (ARRAY[${sellers[0]!.userId}, ${sellers[1]!.userId}]::uuid[])[1 + (i % 2)],
                 CASE WHEN i % 3 = 0 THEN ARRAY['phone'] ELSE ARRAY['accessory'] END,
                 ARRAY['City ' || (i % 500)], ARRAY['city ' || (i % 500)],
                 NULL, CASE WHEN i % 7 = 0 THEN 500 END, now()
          FROM generate_series(1, 3000) AS i`
      )
      await runSql(
        url,
        (sql) =>
          sql`INSERT INTO seller_alert_rules (id, seller_user_id, categories, cities, city_keys, price_min, price_max, created_at)
          VALUES (gen_random_uuid(), ${sellers[0]!.userId}, ARRAY['phone'], ARRAY[${city}], ARRAY['najran'], NULL, 500, now()),
                 (gen_random_uuid(), ${sellers[1]!.userId}, ARRAY['phone'], ARRAY[${city}], ARRAY['najran'], 900, NULL, now())`
      )
      await runSql(url, (sql) => sql`ANALYZE seller_alert_rules`)
      const plan = await runSql(
        url,
        (sql) =>
          sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT id FROM seller_alert_rules rule
        WHERE rule.city_keys @> ARRAY['najran']::text[] AND rule.categories @> ARRAY['phone']::text[]`
      )
      expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("seller_alert_rules_matching")

      const posted = await m.request(buyer, { location_city: city, budget_min: 1000, budget_max: 2000 })
      await settled(witness, buyer, "Najran-witness")
      const matched = await runSql(
        url,
        (sql) =>
          sql<{
            seller: string
          }>`SELECT seller_user_id::text AS seller FROM request_matches WHERE request_id = ${posted.id}`
      )
      expect(matched.map((row) => row.seller)).toEqual([sellers[1]!.userId])
      expect(pushes(sellers[1]!).map((p) => p.data.request_id)).toEqual([posted.id])
      expect(pushes(sellers[0]!)).toEqual([])
    }
  )
})
