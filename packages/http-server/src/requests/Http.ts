import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { RequestListItem } from "@talab/contract"
import { Api, CurrentUser } from "@talab/contract"
import { type BuyRequest, Requests } from "@talab/core"
import * as Effect from "effect/Effect"
import { respond } from "../http/Localize.js"
import { type Paged, type PageRequest, pageRequest, paginationFor } from "../http/Paging.js"
import { RequestQueries } from "./Queries.js"

export const requestView = (request: BuyRequest) => ({
  id: request.id,
  buyer_id: request.buyerId,
  category: request.category,
  product_brand: request.productBrand,
  product_model: request.productModel,
  condition_pref: request.conditionPref,
  budget_min: request.budgetMin,
  budget_max: request.budgetMax,
  location_district: request.locationDistrict,
  location_city: request.locationCity,
  notes: request.notes,
  status: request.status,
  offer_count: request.offerCount,
  created_at: request.createdAt,
  closed_at: request.closedAt,
  expires_at: request.expiresAt,
  extended_at: request.extendedAt
})

const listResponse = (page: PageRequest) => (result: Paged<typeof RequestListItem.Type>) => ({
  success: true as const,
  data: { requests: result.items, pagination: paginationFor(page, result.total) }
})

export const RequestsHttp = HttpApiBuilder.group(Api, "requests", (handlers) =>
  Effect.gen(function* () {
    const service = yield* Requests
    const queries = yield* RequestQueries
    return handlers
      .handle("create", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const request = yield* service.create(user, {
              category: payload.category,
              productBrand: payload.product_brand ?? null,
              productModel: payload.product_model ?? null,
              conditionPref: payload.condition_pref ?? "any",
              budgetMin: payload.budget_min,
              budgetMax: payload.budget_max,
              locationDistrict: payload.location_district,
              locationCity: payload.location_city ?? null,
              notes: payload.notes ?? null
            })
            return { success: true as const, data: requestView(request) }
          })
        )
      )
      .handle("list", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          queries
            .list(
              {
                status: urlParams.status ?? "active",
                category: urlParams.category,
                locationCity: urlParams.location_city
              },
              page
            )
            .pipe(Effect.map(listResponse(page)))
        )
      })
      .handle("listMine", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        return respond(
          Effect.flatMap(CurrentUser, ({ user }) => queries.listMine(user.id, urlParams.status, page)).pipe(
            Effect.map(listResponse(page))
          )
        )
      })
      .handle("get", ({ path }) =>
        respond(Effect.map(queries.detail(path.id), (data) => ({ success: true as const, data })))
      )
      .handle("close", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const closed = yield* service.close(user, path.id)
            return {
              success: true as const,
              data: { id: closed.id, status: closed.status, closed_at: closed.closedAt }
            }
          })
        )
      )
      .handle("extend", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const request = yield* service.extend(user, path.id)
            return {
              success: true as const,
              data: {
                id: request.id,
                status: request.status,
                expires_at: request.expiresAt,
                extended_at: request.extendedAt ?? request.expiresAt
              }
            }
          })
        )
      )
  })
)
