import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { expectError, Marketplace, marketSettings, unknownId } from "../support/fixtures.js"
import { bothBackends, client, type SignedIn, useServer } from "../support/harness.js"

const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))

const imageForm = (bytes: Uint8Array) => {
  const form = new FormData()
  form.append("image", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "photo.png")
  return form
}

describe.each(bothBackends)("photos of requests and offers on %s", (backend) => {
  const server = useServer(backend, { settings: marketSettings })
  const api = () => client(server())
  const m = () => new Marketplace(server(), api(), marketSettings.adminPhoneNumbers[0]!)
  const upload = async (me: SignedIn) => {
    const answer = await api().post("/images", { token: me.token, rawBody: imageForm(png) })
    expect(answer.status).toBe(201)
    return answer.body.data
  }
  const served = async (url: string) => (await fetch(url)).status
  const myRequestCount = async (me: SignedIn) =>
    (await api().get("/requests/my", { token: me.token })).body.data.pagination.total

  it("a request shows its photos in order, to any signed-in user, and its list item the first one's thumbnail", async () => {
    const buyer = await m().buyer()
    const stranger = await m().buyer("Stranger")
    const [a, b] = [await upload(buyer), await upload(buyer)]
    const created = await m().createRequest(buyer, { photo_ids: [b.id, a.id] })
    expect(created.photos.map((photo) => photo.id)).toEqual([b.id, a.id])
    expect(created.photos[0]).toMatchObject({ id: b.id, width: b.width, height: b.height })

    const detail = (await api().get(`/requests/${created.id}`, { token: stranger.token })).body.data
    expect(detail.photos.map((photo) => photo.id)).toEqual([b.id, a.id])
    for (const photo of detail.photos) {
      expect(await served(photo.url)).toBe(200)
      expect(await served(photo.thumbnail_url)).toBe(200)
      // Request photos are seen by anyone signed in: a shared cache may keep them.
      expect((await fetch(photo.url)).headers.get("cache-control")).toMatch(/^public, max-age=\d+$/)
    }
    const mine = (await api().get("/requests/my", { token: buyer.token })).body.data.requests
    expect(mine.find((item) => item.id === created.id)?.thumbnail_url).toBe(detail.photos[0]!.thumbnail_url)
    const everyone = (await api().get("/requests?per_page=50", { token: stranger.token })).body.data.requests
    const item = everyone.find((listed) => listed.id === created.id)!
    expect(item.thumbnail_url).toContain(`/files/images/${b.id}/thumb?`)
    const without = await m().createRequest(buyer)
    expect(without.photos).toEqual([])
    const listed = (await api().get("/requests?per_page=50", { token: stranger.token })).body.data.requests
    expect(listed.find((entry) => entry.id === without.id)?.thumbnail_url).toBeNull()
    const stored = await server().storedImages()
    expect(stored.find((image) => image.id === b.id)).toMatchObject({
      holderKind: "request",
      holderId: created.id,
      position: 0
    })
    expect(stored.find((image) => image.id === a.id)).toMatchObject({
      holderKind: "request",
      holderId: created.id,
      position: 1
    })
  })

  it("a signed-out client gets no photo: the request is 401", async () => {
    const buyer = await m().buyer()
    const created = await m().createRequest(buyer, { photo_ids: [(await upload(buyer)).id] })
    expectError(await api().get(`/requests/${created.id}`), 401, "UNAUTHORIZED")
  })

  it("refuses photo_ids that are another's, attached already, repeated, unknown, not ids or over 6, creating nothing", async () => {
    const buyer = await m().buyer()
    const other = await m().buyer("Other")
    const theirs = await upload(other)
    const mine = await upload(buyer)
    const attached = await upload(buyer)
    await m().createRequest(buyer, { photo_ids: [attached.id] })
    const before = await myRequestCount(buyer)
    const cases: Array<ReadonlyArray<string>> = [
      [theirs.id],
      [mine.id, theirs.id],
      [attached.id],
      [mine.id, mine.id],
      [unknownId()],
      ["not-an-id"],
      Array.from({ length: 7 }, () => unknownId())
    ]
    for (const photoIds of cases) {
      const answer = await api().raw.post("/requests", {
        token: buyer.token,
        body: {
          category: "phone",
          budget_min: 1000,
          budget_max: 2000,
          location_district: "Al Olaya",
          photo_ids: photoIds
        }
      })
      const error = expectError(answer, 400, "VALIDATION_ERROR")
      // The list, or the one id in it that is not an id (`photo_ids.0`).
      expect(
        Object.keys(error.details).every((field) => field.startsWith("photo_ids")),
        JSON.stringify(error)
      ).toBe(true)
    }
    expect(await myRequestCount(buyer)).toBe(before)
    // The image refused with the others is still unattached, and can be used.
    const stored = await server().storedImages()
    expect(stored.find((image) => image.id === mine.id)?.holderKind).toBeNull()
    expect((await m().createRequest(buyer, { photo_ids: [mine.id] })).photos).toHaveLength(1)
  })

  it("accepts 6 photos on a request and 8 on an offer, and refuses 7 and 9", async () => {
    const buyer = await m().buyer()
    const seller = await m().approvedSeller()
    const six = await Promise.all(Array.from({ length: 6 }, () => upload(buyer)))
    const request = await m().createRequest(buyer, { photo_ids: six.map((image) => image.id) })
    expect(request.photos).toHaveLength(6)
    const nine = await Promise.all(Array.from({ length: 9 }, () => upload(seller)))
    const refused = await api().raw.post("/offers", {
      token: seller.token,
      body: { request_id: request.id, price: 1500, availability: "today", photo_ids: nine.map((image) => image.id) }
    })
    expectError(refused, 400, "VALIDATION_ERROR", ["photo_ids"])
    const offer = await m().offer(seller, request.id, { photo_ids: nine.slice(0, 8).map((image) => image.id) })
    expect(offer.photos.map((photo) => photo.id)).toEqual(nine.slice(0, 8).map((image) => image.id))
  })

  it("offer photos: the request's owner and the offer's seller see them, in every offer view; nobody else", async () => {
    const buyer = await m().buyer()
    const seller = await m().approvedSeller("Seller")
    const otherSeller = await m().approvedSeller("Other seller")
    const stranger = await m().buyer("Stranger")
    const request = await m().createRequest(buyer)
    const photo = await upload(seller)
    const offer = await m().offer(seller, request.id, { photo_ids: [photo.id] })
    expect(offer.photos.map((shown) => shown.id)).toEqual([photo.id])
    await m().offer(otherSeller, request.id)

    const asBuyer = (await api().get(`/requests/${request.id}/offers`, { token: buyer.token })).body.data.offers
    expect(asBuyer.find((listed) => listed.id === offer.id)?.photos.map((shown) => shown.id)).toEqual([photo.id])
    const asSeller = (await api().get(`/requests/${request.id}/offers`, { token: seller.token })).body.data.offers
    expect(asSeller.map((listed) => listed.id)).toEqual([offer.id])
    expect(asSeller[0]!.photos.map((shown) => shown.id)).toEqual([photo.id])
    const mine = (await api().get("/offers/my", { token: seller.token })).body.data.offers
    expect(mine.find((listed) => listed.id === offer.id)?.photos.map((shown) => shown.id)).toEqual([photo.id])

    // The other seller sees only their own offer; no URL of this one is in anything they are answered.
    const asOther = await api().get(`/requests/${request.id}/offers`, { token: otherSeller.token })
    expect(asOther.body.data.offers.every((listed) => listed.id !== offer.id)).toBe(true)
    expect(JSON.stringify(asOther.body)).not.toContain(photo.id)
    const strangerAnswer = await api().get(`/requests/${request.id}/offers`, { token: stranger.token })
    expect(strangerAnswer.status).toBe(403)
    expect(JSON.stringify(strangerAnswer.body)).not.toContain(photo.id)
    expect(JSON.stringify((await api().get(`/requests/${request.id}`, { token: stranger.token })).body)).not.toContain(
      photo.id
    )
    expectError(await api().get(`/requests/${request.id}/offers`), 401, "UNAUTHORIZED")

    // Private to the two parties: no shared cache keeps them.
    const shown = asBuyer.find((listed) => listed.id === offer.id)!.photos[0]!
    expect((await fetch(shown.url)).headers.get("cache-control")).toMatch(/^private, max-age=\d+$/)

    // The offer in the deal shows them too, to both parties only.
    const deal = await m().accept(buyer, offer.id)
    const dealView = (await api().get(`/deals/${deal.id}`, { token: buyer.token })).body.data
    expect(dealView.offer.photos.map((shownPhoto) => shownPhoto.id)).toEqual([photo.id])
    expect((await api().get(`/deals/${deal.id}`, { token: seller.token })).body.data.offer.photos).toHaveLength(1)
    expect((await api().get(`/deals/${deal.id}`, { token: otherSeller.token })).status).toBe(403)
  })

  it("a withdrawn offer's photo URLs answer 404 from then on, and the sweep removes its files", async () => {
    const buyer = await m().buyer()
    const seller = await m().approvedSeller()
    const request = await m().createRequest(buyer)
    const photo = await upload(seller)
    const offer = await m().offer(seller, request.id, { photo_ids: [photo.id] })
    const { url, thumbnail_url } = offer.photos[0]!
    expect(await served(url)).toBe(200)
    await m().withdraw(seller, offer.id)
    expect(await served(url)).toBe(404)
    expect(await served(thumbnail_url)).toBe(404)
    const mine = (await api().get("/offers/my", { token: seller.token })).body.data.offers
    expect(mine.find((listed) => listed.id === offer.id)?.photos).toEqual([])
    const report = await server().sweepImages()
    expect(report.ofWithdrawnOffers).toBeGreaterThanOrEqual(1)
    expect((await server().storedImages()).some((image) => image.id === photo.id)).toBe(false)
  })

  it("deleting an account deletes every photo its user uploaded, rows and files; their URLs answer 404", async () => {
    const buyer = await m().buyer()
    const other = await m().buyer("Other")
    const onRequest = await upload(buyer)
    const loose = await upload(buyer)
    const kept = await upload(other)
    await m().createRequest(buyer, { photo_ids: [onRequest.id] })
    await server().deleteUser(buyer.phone)
    const stored = await server().storedImages()
    expect(stored.some((image) => image.ownerId === buyer.userId)).toBe(false)
    expect(await served(onRequest.url)).toBe(404)
    expect(await served(loose.thumbnail_url)).toBe(404)
    expect(await served(kept.url)).toBe(200)
  })
})
