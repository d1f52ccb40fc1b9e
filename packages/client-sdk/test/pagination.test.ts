import { beforeAll, describe, expect, it } from "vitest"
import type { TalabClient } from "../src/index.js"
import { countingFetch, postRequest, signedInClient, useTestServer } from "./support.js"

describe("pagination helpers", () => {
  const server = useTestServer()
  const counting = countingFetch()
  let buyer: TalabClient
  const posted: Array<string> = []

  beforeAll(async () => {
    buyer = (await signedInClient(server(), { fetch: counting.fetch })).talab
    for (let i = 0; i < 7; i++) posted.push((await postRequest(buyer, { budget_max: 3000 + i })).id)
  })

  it("pages() walks every page of a list endpoint, one request per page, until last_page", async () => {
    const before = counting.count("/requests/my")
    const pages = []
    for await (const page of buyer.pages("/requests/my", { params: { query: { per_page: 3 } } })) pages.push(page)

    expect(pages.map((p) => p.requests.length)).toEqual([3, 3, 1])
    expect(pages.map((p) => p.pagination.current_page)).toEqual([1, 2, 3])
    expect(pages.every((p) => p.pagination.total === 7 && p.pagination.last_page === 3)).toBe(true)
    expect(counting.count("/requests/my") - before).toBe(3)
  })

  it("items() yields every item across the pages, newest first, each once", async () => {
    const ids: Array<string> = []
    for await (const request of buyer.items("/requests/my", { params: { query: { per_page: 2 } } }))
      ids.push(request.id)
    expect(ids).toEqual([...posted].reverse())
  })

  it("starts at the page given and keeps the other query parameters on every page", async () => {
    const owner = await signedInClient(server())
    const mine = [await postRequest(owner.talab), await postRequest(owner.talab), await postRequest(owner.talab)]
    await owner.talab.PUT("/requests/{id}/close", { params: { path: { id: mine[0]!.id } } })

    const closed = []
    for await (const r of owner.talab.items("/requests/my", { params: { query: { status: "closed", per_page: 1 } } }))
      closed.push(r)
    expect(closed.map((r) => r.id)).toEqual([mine[0]!.id])

    const fromSecond = []
    for await (const page of owner.talab.pages("/requests/my", { params: { query: { page: 2, per_page: 1 } } })) {
      fromSecond.push(page.pagination.current_page)
    }
    expect(fromSecond).toEqual([2, 3])
  })

  it("stops early when the loop breaks: pages after it are never fetched", async () => {
    const before = counting.count("/requests/my")
    for await (const page of buyer.pages("/requests/my", { params: { query: { per_page: 1 } } })) {
      expect(page.pagination.current_page).toBe(1)
      break
    }
    expect(counting.count("/requests/my") - before).toBe(1)
  })

  it("does not yield an item twice when a new one pushes the list down while walking", async () => {
    const seen: Array<string> = []
    let inserted = false
    for await (const request of buyer.items("/requests/my", { params: { query: { per_page: 3 } } })) {
      seen.push(request.id)
      if (!inserted) {
        inserted = true
        posted.push((await postRequest(buyer)).id)
      }
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual(expect.arrayContaining(posted.slice(0, 7)))
  })
})
