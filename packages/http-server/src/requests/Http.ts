import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { RequestListItem } from "@talab/contract"
import { Api, CurrentUser } from "@talab/contract"
import * as Effect from "effect/Effect"
import { respond } from "../http/Localize.js"
import { type Paged, type PageRequest, pageRequest, paginationFor } from "../http/Paging.js"
import { RequestQueries } from "./Queries.js"
import { RequestsService } from "./Service.js"

const listResponse = (page: PageRequest) => (result: Paged<typeof RequestListItem.Type>) => ({
  success: true as const,
  data: { requests: result.items, pagination: paginationFor(page, result.total) }
})

export const RequestsHttp = HttpApiBuilder.group(Api, "requests", (handlers) =>
  Effect.gen(function* () {
    const service = yield* RequestsService
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
            return { success: true as const, data: request }
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
            return { success: true as const, data: closed }
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
              data: { ...request, extendedAt: request.extendedAt ?? request.expiresAt }
            }
          })
        )
      )
  })
)
