import type { PathsWith, RequestInitOf, ResponseData } from "../api/paths.js"

/** `data.pagination` of a list response. */
export interface PaginationInfo {
  readonly current_page: number
  readonly per_page: number
  readonly total: number
  readonly last_page: number
}

/** The GET endpoints whose `data` carries `pagination` (GET /requests, /offers/my, /deals/my, …). */
export type PaginatedPath = {
  [P in PathsWith<"get">]: ResponseData<P, "get"> extends { pagination: PaginationInfo } ? P : never
}[PathsWith<"get">]

/** The `data` of one page of a paginated endpoint (`{ requests: […], pagination }`). */
export type PageData<P extends PaginatedPath> = ResponseData<P, "get">

type ListKey<P extends PaginatedPath> = Exclude<keyof PageData<P>, "pagination">

/** One item of a paginated endpoint's list (a request of GET /requests, a deal of GET /deals/my, …). */
export type PageItem<P extends PaginatedPath> = {
  [K in ListKey<P>]: PageData<P>[K] extends ReadonlyArray<infer Item> ? Item : never
}[ListKey<P>]

type GetPage = (path: string, init: { params: { query: Record<string, unknown> } }) => Promise<{ data: unknown }>

/** Walks the pages of a paginated endpoint from `query.page` (default 1) to `last_page`. */
export async function* walkPages(
  get: GetPage,
  path: string,
  init: RequestInitOf<any, "get"> | undefined
): AsyncGenerator<any, void, undefined> {
  const base = (init ?? {}) as { params?: { query?: { readonly page?: number } & Record<string, unknown> } }
  let page = base.params?.query?.page ?? 1
  for (;;) {
    const body = await get(path, { ...base, params: { ...base.params, query: { ...base.params?.query, page } } })
    const data = body.data as { pagination: PaginationInfo }
    yield data
    const { current_page, last_page } = data.pagination
    if (current_page >= last_page) return
    page = current_page + 1
  }
}

const listOf = (data: Record<string, unknown>): ReadonlyArray<unknown> => {
  for (const [key, value] of Object.entries(data)) if (key !== "pagination" && Array.isArray(value)) return value
  return []
}

/**
 * The items of every page, in order. An item already seen on an earlier page (lists are newest first,
 * so a new item pushes older ones one page down while walking) is not yielded again.
 */
export async function* walkItems(pages: AsyncIterable<Record<string, unknown>>): AsyncGenerator<any, void, undefined> {
  const seen = new Set<unknown>()
  for await (const data of pages) {
    for (const item of listOf(data)) {
      const id = (item as { id?: unknown } | null)?.id
      if (id !== undefined) {
        if (seen.has(id)) continue
        seen.add(id)
      }
      yield item
    }
  }
}
