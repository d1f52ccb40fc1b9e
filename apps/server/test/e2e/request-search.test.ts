import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { aRequestBody, expectError, market, marketSettings } from "../support/fixtures.js"
import { bothBackends, type SignedIn, useServer } from "../support/harness.js"

/*
 * Search of buy requests (docs/DECISIONS.md, "Search"): `q` in Arabic and Latin spellings, `sort`, `fits_price`,
 * and alert rules' `keywords`, on both databases. Each test posts its requests in a city of its own and filters by
 * it, so other tests' requests stay out of its lists.
 */

const aCity = () => `Town ${randomUUID().slice(0, 8)}`
const within = { timeout: 5_000, interval: 20 }

/** Ten products, each with spellings people write for it: Arabic, Latin, mixed, typos, Arabic-Indic digits. */
const products = [
  {
    body: { product_brand: "Apple", product_model: "iPhone 13 Pro", notes: "256GB بطارية ممتازة" },
    spellings: [
      "آيفون ١٣ برو",
      "ايفون 13 pro",
      "iPhone13 Pro",
      "أيفون١٣ بـرو",
      "IPHONE 13 PRO",
      "iphnoe 13 pro",
      "ايفوم ١٣ برو",
      "ابل ايفون 13 برو",
      "iPhone-13-Pro"
    ]
  },
  {
    body: { product_brand: "Samsung", product_model: "Galaxy S23 Ultra", notes: "512GB black" },
    spellings: [
      "سامسونج جالكسي S23 الترا",
      "Samsung Galaxy S23 Ultra",
      "سامسونغ جالاكسي ٢٣ الترا",
      "samsumg galaxy s23 ultra",
      "galaxy s23ultra",
      "جلاكسي S٢٣ الترا",
      "GALAXY S-23 ULTRA",
      "glaxy s23 ultra"
    ]
  },
  {
    body: { product_brand: "Xiaomi", product_model: "Redmi Note 12", notes: "نسخة عالمية" },
    spellings: [
      "شاومي ريدمي نوت 12",
      "Xiaomi Redmi Note 12",
      "ريدمي نوت ١٢",
      "redmi note12",
      "شاومى ردمي نوت ١٢",
      "readmi note 12",
      "REDMI NOTE-12"
    ]
  },
  {
    body: { product_brand: "Huawei", product_model: "Mate 50", notes: "green" },
    spellings: ["هواوي ميت 50", "Huawei Mate 50", "هواوى مايت ٥٠", "huawai mate 50", "HUAWEI MATE50", "هواوي Mate ٥٠"]
  },
  {
    body: { product_brand: "Google", product_model: "Pixel 7", notes: "unlocked" },
    spellings: ["جوجل بكسل 7", "Google Pixel 7", "بيكسل ٧", "pixle 7", "Pixel7", "قوقل بكسل ۷", "google pix 7"]
  },
  {
    body: { category: "accessory", product_brand: "Apple", product_model: "AirPods Max", notes: "silver" },
    spellings: [
      "ايربودز ماكس",
      "AirPods Max",
      "airpod max",
      "اير بودز ماكس",
      "AIRPODS-MAX",
      "ايربود ماكس",
      "ابل ايربودز ماكس"
    ]
  },
  {
    body: { product_brand: "Apple", product_model: "iPad Mini 6", notes: "wifi" },
    spellings: [
      "ايباد ميني 6",
      "iPad Mini 6",
      "آيباد ميني ٦",
      "ipad mini6",
      "IPAD MINI 6",
      "ابل ايباد ميني ٦",
      "ipadd mini 6"
    ]
  },
  {
    body: { product_brand: "OnePlus", product_model: "11", notes: "5G" },
    spellings: ["ون بلس 11", "OnePlus 11", "oneplus١١", "وان بلس ١١", "one plus 11", "oneplsu 11", "ONEPLUS-11"]
  },
  {
    body: { product_brand: "Nokia", product_model: "105", notes: "للوالد" },
    spellings: ["نوكيا 105", "Nokia 105", "نوكيا ١٠٥", "nokai 105", "NOKIA105", "nok 105"]
  },
  {
    body: { product_brand: "Honor", product_model: "X9a", notes: "مستعمل نظيف" },
    spellings: ["هونر X9a", "Honor X9a", "هونور x٩a", "hnoor x9a", "HONOR X9A", "honor x 9 a"]
  }
] as const

describe.each(bothBackends)("request search on %s", (backend) => {
  const server = useServer(backend, { settings: marketSettings })
  const m = market(server)

  const list = async (user: SignedIn, query: Record<string, string | number>) => {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))
    const response = await m.api().get(`/requests?${params}`, { token: user.token })
    return m.expectStatus(response, 200, `GET /requests?${params}`).body.data
  }
  const ids = async (user: SignedIn, query: Record<string, string | number>) =>
    (await list(user, { per_page: 50, ...query })).requests.map((r) => r.id)

  it("finds each of ten products by 60+ spellings, and none of the other nine", async () => {
    expect(products.flatMap((p) => p.spellings).length).toBeGreaterThanOrEqual(60)
    const city = aCity()
    const buyer = await m.user()
    const posted: Array<{ id: string }> = []
    for (const product of products) posted.push(await m.request(buyer, { ...product.body, location_city: city }))
    const misses: Array<string> = []
    for (const [i, product] of products.entries()) {
      for (const q of product.spellings) {
        const found = await ids(buyer, { q, location_city: city })
        if (found.length !== 1 || found[0] !== posted[i]!.id)
          misses.push(`${q}: ${found.map((id) => posted.findIndex((p) => p.id === id)).join(",")}`)
      }
    }
    expect(misses).toEqual([])
  })

  it("matches every word (AND), by prefix from 3 letters and by one typo from 5, after normalisation", async () => {
    const city = aCity()
    const buyer = await m.user()
    const phone = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxy A54",
      location_district: "الملقا",
      notes: "مكتبة أطفال، مستعملة",
      location_city: city
    })
    const found = (q: string) => ids(buyer, { q, location_city: city })
    expect(await found("galaxy a54")).toEqual([phone.id])
    expect(await found("galaxy nokia")).toEqual([])
    expect(await found("gal")).toEqual([phone.id])
    expect(await found("ga")).toEqual([])
    expect(await found("galaxi")).toEqual([phone.id])
    expect(await found("galxy")).toEqual([phone.id])
    expect(await found("samsnug")).toEqual([phone.id])
    expect(await found("gaalxy")).toEqual([phone.id])
    // Four letters are too short for a typo; two typos are too many.
    expect(await found("galx")).toEqual([])
    expect(await found("glxay")).toEqual([])
    // District and notes, normalised: hamza, teh marbuta, diacritics, tatweel, punctuation.
    expect(await found("المَلْقـا")).toEqual([phone.id])
    expect(await found("اطفال")).toEqual([phone.id])
    expect(await found("مستعمله")).toEqual([phone.id])
    expect(await found(`"مكتبة" ${city.split(" ")[1]}`)).toEqual([phone.id])
  })

  it("ranks by relevance with q: exact words, then no typo, then brand and model, then newest; `newest` on asking", async () => {
    const city = aCity()
    const buyer = await m.user()
    const inTitle = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxy A54",
      notes: null,
      location_city: city
    })
    const inNotes = await m.request(buyer, {
      product_brand: "Nokia",
      product_model: "G21",
      notes: "galaxy case too",
      location_city: city
    })
    const typo = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxi A14",
      notes: null,
      location_city: city
    })
    const prefix = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxys",
      notes: null,
      location_city: city
    })
    const olderTwin = inTitle
    const newerTwin = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxy A34",
      notes: null,
      location_city: city
    })
    expect(await ids(buyer, { q: "galaxy", location_city: city })).toEqual([
      newerTwin.id,
      olderTwin.id,
      inNotes.id,
      prefix.id,
      typo.id
    ])
    expect(await ids(buyer, { q: "galaxy", location_city: city, sort: "relevance" })).toEqual(
      await ids(buyer, { q: "galaxy", location_city: city })
    )
    expect(await ids(buyer, { q: "galaxy", location_city: city, sort: "newest" })).toEqual([
      newerTwin.id,
      prefix.id,
      typo.id,
      inNotes.id,
      inTitle.id
    ])
    // Without q, relevance is newest first.
    expect(await ids(buyer, { location_city: city, sort: "relevance" })).toEqual(
      await ids(buyer, { location_city: city })
    )
    // More words matched exactly first.
    const both = await m.request(buyer, {
      product_brand: "Samsung",
      product_model: "Galaxi Ultra",
      location_city: city
    })
    const ranked = await ids(buyer, { q: "samsung galaxy", location_city: city })
    expect(ranked.slice(0, 3)).toEqual([newerTwin.id, olderTwin.id, prefix.id])
    expect(ranked.slice(3)).toEqual([both.id, typo.id])
  })

  it("fits_price keeps the requests whose budget contains it; budget sorts; total and pages count what q finds", async () => {
    const city = aCity()
    const buyer = await m.user()
    const low = await m.request(buyer, { budget_min: 1000, budget_max: 2000, location_city: city })
    const mid = await m.request(buyer, { budget_min: 1500, budget_max: 3000, location_city: city })
    const high = await m.request(buyer, { budget_min: 3000, budget_max: 4000, location_city: city })
    const sorted = (found: ReadonlyArray<string>) => [...found].sort()
    expect(sorted(await ids(buyer, { fits_price: 1500, location_city: city }))).toEqual(sorted([low.id, mid.id]))
    expect(sorted(await ids(buyer, { fits_price: 3000, location_city: city }))).toEqual(sorted([mid.id, high.id]))
    expect(await ids(buyer, { fits_price: 2500.5, location_city: city })).toEqual([mid.id])
    expect(await ids(buyer, { fits_price: 999.99, location_city: city })).toEqual([])
    expect(await ids(buyer, { location_city: city, sort: "budget_desc" })).toEqual([high.id, mid.id, low.id])
    expect(await ids(buyer, { location_city: city, sort: "budget_asc" })).toEqual([low.id, mid.id, high.id])
    expect(await ids(buyer, { q: "iphone", location_city: city, sort: "budget_asc", fits_price: 2000 })).toEqual([
      low.id,
      mid.id
    ])

    const page = await list(buyer, { q: "ايفون", location_city: city, per_page: 2, page: 2 })
    expect(page.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2 })
    expect(page.requests).toHaveLength(1)
    expect((await list(buyer, { q: "ايفون", fits_price: 1800, location_city: city })).pagination.total).toBe(2)
    expect((await list(buyer, { q: "nokia", location_city: city })).pagination.total).toBe(0)

    expect((await m.api().put(`/requests/${mid.id}/close`, { token: buyer.token })).status).toBe(200)
    expect(await ids(buyer, { q: "iphone", location_city: city, status: "closed" })).toEqual([mid.id])
    expect((await list(buyer, { q: "iphone", location_city: city })).pagination.total).toBe(2)
    expect(await ids(buyer, { q: "iphone", category: "accessory", location_city: city })).toEqual([])
  })

  it.each([
    ["q=", "q"],
    [`q=${"a".repeat(101)}`, "q"],
    [`q=${encodeURIComponent("!!! --- ،؟")}`, "q"],
    [`q=${encodeURIComponent("ـــ")}`, "q"],
    ["sort=oldest", "sort"],
    ["sort=", "sort"],
    ["fits_price=0", "fits_price"],
    ["fits_price=-5", "fits_price"],
    ["fits_price=abc", "fits_price"],
    ["fits_price=1.234", "fits_price"],
    ["fits_price=1e3", "fits_price"],
    ["fits_price=2000000000", "fits_price"],
    ["fits_price=", "fits_price"]
  ])("refuses %s with 400 naming %s", async (query, field) => {
    const buyer = await m.user()
    const response = await m.api().get(`/requests?${query}`, { token: buyer.token })
    expectError(response, 400, "VALIDATION_ERROR")
    expect(JSON.stringify(response.body.error.details)).toContain(field)
  })

  it("takes q of 100 characters, and any q's words in any order without a server error", async () => {
    const buyer = await m.user()
    expect((await m.api().get(`/requests?q=${"ب".repeat(100)}`, { token: buyer.token })).status).toBe(200)
    for (const q of ["%", "_x_", "a%b", "'; DROP TABLE buy_requests; --", "\\", "iph*", "١٢٣٤٥٦٧٨٩٠", "ـهـ ب"]) {
      const response = await m.api().get(`/requests?q=${encodeURIComponent(q)}`, { token: buyer.token })
      expect([200, 400], q).toContain(response.status)
    }
  })

  describe("alert rules with keywords", () => {
    const alerts = "/seller-profiles/me/alerts"
    const rule = async (seller: SignedIn, body: Record<string, unknown>) =>
      m.expectStatus(await m.api().raw.post(alerts, { token: seller.token, body }), 201, "create rule").body.data
    const pushes = (user: SignedIn) =>
      server()
        .pushes.to(user.userId)
        .filter((push) => push.type === "request_match")
    const device = async (user: SignedIn) =>
      m.expectStatus(
        await m.api().post("/device-tokens", {
          token: user.token,
          body: { platform: "android", push_token: `search-${backend}-${user.userId}` }
        }),
        201,
        "register device"
      )

    it("alerts only about requests that every keyword finds, in either script", async () => {
      const city = aCity()
      const seller = await m.seller("Keywords")
      await device(seller)
      const created = await rule(seller, { categories: ["phone"], cities: [city], keywords: ["ايفون", "Pro"] })
      expect(created.keywords).toEqual(["ايفون", "Pro"])
      const witness = await m.seller("Witness")
      await device(witness)
      await rule(witness, { categories: ["phone"], cities: [city] })
      const buyer = await m.user()
      const pro = await m.request(buyer, {
        product_brand: "Apple",
        product_model: "iPhone 13 Pro",
        location_city: city
      })
      const arabic = await m.request(buyer, {
        product_brand: "ابل",
        product_model: "آيفون ١٥ برو ماكس",
        location_city: city
      })
      const typo = await m.request(buyer, {
        product_brand: "Apple",
        product_model: "iphnoe 14 برو",
        location_city: city
      })
      const plain = await m.request(buyer, { product_brand: "Apple", product_model: "iPhone 13", location_city: city })
      const other = await m.request(buyer, {
        product_brand: "Samsung",
        product_model: "Galaxy S23 Pro",
        location_city: city
      })
      const last = await m.request(buyer, { location_city: city })
      await expect.poll(() => pushes(witness).some((p) => p.data.request_id === last.id), within).toBe(true)
      const alerted = pushes(seller).map((p) => p.data.request_id)
      expect(alerted).toEqual(expect.arrayContaining([pro.id, arabic.id, typo.id]))
      expect(alerted).not.toContain(plain.id)
      expect(alerted).not.toContain(other.id)
      const listed = m.expectStatus(await m.api().get(alerts, { token: seller.token }), 200, "list").body.data.alerts
      expect(listed[0]!.keywords).toEqual(["ايفون", "Pro"])
      expect((await m.api().get(alerts, { token: witness.token })).body.data.alerts[0]!.keywords).toEqual([])
    })

    it.each([
      [[], "keywords"],
      [["a", "b", "c", "d", "e", "f"], "keywords"],
      [["!!!"], "keywords"],
      [[""], "keywords"],
      [["x".repeat(51)], "keywords"],
      ["iphone", "keywords"]
    ])("refuses keywords %j with 400, and stores no rule", async (keywords, field) => {
      const seller = await m.seller("Refused")
      const response = await m
        .api()
        .raw.post(alerts, { token: seller.token, body: { categories: ["phone"], cities: ["Riyadh"], keywords } })
      expectError(response, 400, "VALIDATION_ERROR")
      expect(JSON.stringify(response.body.error.details)).toContain(field)
      expect((await m.api().get(alerts, { token: seller.token })).body.data.alerts).toEqual([])
    })
  })

  it("posts with the defaults of other suites still searchable", async () => {
    const city = aCity()
    const buyer = await m.user()
    const posted = await m.request(buyer, { ...aRequestBody(), location_city: city })
    expect(await ids(buyer, { q: "آيفون ١٥", location_city: city })).toEqual([posted.id])
  })
})
