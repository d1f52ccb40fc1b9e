import { paginationOf } from "@talab/contract"
import * as Effect from "effect/Effect"

const DEFAULT_PER_PAGE = 20

/** The page a list endpoint was asked for, defaults applied. */
export interface PageRequest {
  readonly page: number
  readonly perPage: number
}

export const pageRequest = (params: {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}): PageRequest => ({
  page: params.page ?? 1,
  perPage: params.per_page ?? DEFAULT_PER_PAGE
})

/** Rows to skip for a page. */
export const offsetOf = (page: PageRequest) => (page.page - 1) * page.perPage

/** One page of a list and how many items the whole list has. */
export interface Paged<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
}

/** The `pagination` object of a list response. */
export const paginationFor = (page: PageRequest, total: number) => paginationOf(page.page, page.perPage, total)

/**
 * A page's rows and its list's total, read at the same time on two pool connections: the list answers after
 * one round trip's wait instead of two. (They were two statements, so two snapshots, before too.)
 */
export const rowsAndTotal = <R, T, E1, E2, C1, C2>(rows: Effect.Effect<R, E1, C1>, total: Effect.Effect<T, E2, C2>) =>
  Effect.all({ rows, total }, { concurrency: 2 })
