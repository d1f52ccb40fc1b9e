import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Api, CurrentUser } from "@talab/contract"
import { changed, requireAdmin, SellerProfiles } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AuditTrail } from "../audit/AuditTrail.js"
import { respond } from "../http/Localize.js"
import { pageRequest, paginationFor } from "../http/Paging.js"
import { cacheableAnswer, sellerTag, userTag } from "../readcache/ReadCache.js"
import { SellerProfileQueries } from "./Queries.js"

const SellerProfilesHttp = HttpApiBuilder.group(Api, "sellerProfiles", (handlers) =>
  Effect.gen(function* () {
    const service = yield* SellerProfiles
    const queries = yield* SellerProfileQueries
    return handlers
      .handle("apply", ({ payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            return yield* service.apply(user, payload)
          })
        )
      )
      .handle("getPublic", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const profile = yield* service.getPublic(path.id)
            const trust = Option.getOrThrow(yield* queries.trustOfSeller(profile.userId))
            yield* cacheableAnswer({ tags: [sellerTag(profile.userId), userTag(profile.userId)] })
            return { ...profile, trust }
          })
        )
      )
  })
)

const AdminSellerProfilesHttp = HttpApiBuilder.group(Api, "adminSellerProfiles", (handlers) =>
  Effect.gen(function* () {
    const service = yield* SellerProfiles
    const queries = yield* SellerProfileQueries
    const audit = yield* AuditTrail
    const target = (id: string) => ({ type: "seller_profile", id }) as const
    return handlers
      .handle("listPending", ({ urlParams }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            yield* requireAdmin(user)
            const page = pageRequest(urlParams)
            const { items, total } = yield* queries.listPending(page)
            return { profiles: items, pagination: paginationFor(page, total) }
          })
        )
      )
      .handle("approve", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            return yield* audit.audited(user, service.approve(user, path.id), (profile) => ({
              action: "seller_profile.approve",
              target: target(profile.id),
              changes: { status: changed("pending", profile.status) }
            }))
          })
        )
      )
      .handle("reject", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const profile = yield* audit.audited(user, service.reject(user, path.id, payload ?? {}), (profile) => ({
              action: "seller_profile.reject",
              target: target(profile.id),
              changes: {
                status: changed("pending", profile.status),
                rejection_reason: changed(null, profile.rejectionReason)
              }
            }))
            return { id: profile.id, status: profile.status, rejectionReason: profile.rejectionReason }
          })
        )
      )
      .handle("suspend", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const { profile, rejectedOfferIds } = yield* audit.audited(
              user,
              service.suspend(user, path.id),
              ({ profile, rejectedOfferIds }) => ({
                action: "seller_profile.suspend",
                target: target(profile.id),
                changes: {
                  status: changed("approved", profile.status),
                  rejected_offer_ids: changed([], rejectedOfferIds),
                  reason: changed(null, payload.reason)
                }
              })
            )
            return { id: profile.id, status: profile.status, rejectedOfferIds }
          })
        )
      )
      .handle("reinstate", ({ path, payload }) =>
        respond(
          Effect.gen(function* () {
            const { user } = yield* CurrentUser
            const profile = yield* audit.audited(user, service.reinstate(user, path.id), (profile) => ({
              action: "seller_profile.reinstate",
              target: target(profile.id),
              changes: { status: changed("suspended", profile.status), reason: changed(null, payload.reason) }
            }))
            return { id: profile.id, status: profile.status }
          })
        )
      )
  })
)

/** Seller profiles and their review by the admin: the REST handlers with their own services. */
export const SellerProfilesLive = Layer.mergeAll(SellerProfilesHttp, AdminSellerProfilesHttp).pipe(
  Layer.provide([SellerProfiles.Default, SellerProfileQueries.Default, AuditTrail.Default])
)
