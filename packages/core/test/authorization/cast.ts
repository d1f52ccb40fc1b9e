import { randomUUID } from "node:crypto"
import { Cause, Chunk, Effect, Exit, HashMap, Layer, Option } from "effect"
import {
  Chat,
  ConversationRepo,
  Deals,
  Memory,
  Offers,
  Ratings,
  Reports,
  RequestSettings,
  Requests,
  SellerProfileRepo,
  type SellerProfileStatus,
  SellerProfiles,
  type User,
  UserRepo
} from "../../src/index.js"
import { aSellerProfile, at, aUser } from "../ports/fixtures.js"

/*
 * The callers of the authorization matrix, as apps/server/test/e2e/marketplace-authz.test.ts names them, and the
 * use cases over a fresh in-memory store for each test. Anonymous callers are HTTP's (no token, 401): core's use
 * cases always have somebody.
 */

export type Role = "owner" | "otherBuyer" | "approvedSeller" | "pendingSeller" | "suspendedSeller" | "admin"
export const roles: ReadonlyArray<Role> = [
  "owner",
  "otherBuyer",
  "approvedSeller",
  "pendingSeller",
  "suspendedSeller",
  "admin"
]
export type Cast = Readonly<Record<Role, User>>

/** Every use case over its own empty in-memory store: provide it to each test. */
export const Marketplace = Layer.mergeAll(
  Requests.Default,
  Offers.Default,
  Deals.Default,
  Ratings.Default,
  Reports.Default,
  SellerProfiles.Default,
  Chat.Default
).pipe(Layer.provide(RequestSettings.Default), Layer.provideMerge(Memory.InMemoryPorts))
export type Env = Layer.Layer.Success<typeof Marketplace>

const signedUp = (overrides: Partial<User> = {}) =>
  Effect.flatMap(UserRepo, (users) => users.insertOrGet(aUser(overrides)))

/** A user with a seller profile in `status`. */
export const sellerWith = (status: SellerProfileStatus) =>
  Effect.gen(function* () {
    const user = yield* signedUp()
    const approvedAt = status === "pending" ? null : at("2025-01-02T12:00:00.000Z")
    yield* (yield* SellerProfileRepo).insertIfAbsent(aSellerProfile(user.id, { status, approvedAt }))
    return user
  })

/** The six signed-in callers, stored: two plain buyers, three sellers by profile status, an administrator. */
export const makeCast: Effect.Effect<Cast, never, Env> = Effect.all({
  owner: signedUp(),
  otherBuyer: signedUp(),
  approvedSeller: sellerWith("approved"),
  pendingSeller: sellerWith("pending"),
  suspendedSeller: sellerWith("suspended"),
  admin: signedUp({ isAdmin: true })
})

/** What a call comes to: success, or the tag of the error it failed with. A defect fails the test. */
export type Outcome = "ok" | "Forbidden" | "SellerNotApproved" | "NotFound" | "CannotReportSelf" | "SellerProfileExists"

export const outcomeOf = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.match(exit, {
    onSuccess: () => "ok",
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onSome: (error) => (error as { readonly _tag: string })._tag,
        onNone: () => {
          throw new Error(`the call died: ${Cause.pretty(cause)}`)
        }
      })
  })

/** The given callers get their outcome, every other one `otherwise`. */
export const outcomes = (given: Partial<Record<Role, Outcome>>, otherwise: Outcome): Record<Role, Outcome> => ({
  owner: given.owner ?? otherwise,
  otherBuyer: given.otherBuyer ?? otherwise,
  approvedSeller: given.approvedSeller ?? otherwise,
  pendingSeller: given.pendingSeller ?? otherwise,
  suspendedSeller: given.suspendedSeller ?? otherwise,
  admin: given.admin ?? otherwise
})

/**
 * Every committed table of the store and its outbox, as sorted entries. The ports read neither reports nor
 * messages back, so "a refused call changes nothing" compares all of it.
 */
export const storeSnapshot = Effect.map(
  Effect.flatMap(Memory.MemoryStore, (store) => store.committed),
  (tables) =>
    Object.fromEntries(
      Object.entries(tables).map(([name, table]) => [
        name,
        Chunk.isChunk(table)
          ? Chunk.toReadonlyArray(table)
          : Array.from(HashMap.entries(table as HashMap.HashMap<string, unknown>)).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0
            )
      ])
    )
)

const requestInput = {
  category: "phone",
  productBrand: "Apple",
  productModel: "iPhone 15",
  conditionPref: "any",
  budgetMin: 2500,
  budgetMax: 3200,
  locationDistrict: "Al Olaya",
  locationCity: "Riyadh"
} as const

export const offerInput = (requestId: string) => ({
  requestId,
  price: 2900,
  availability: "today"
})

/** An active request of the owner, posted through the use case. */
export const freshRequest = (cast: Cast) =>
  Effect.flatMap(Requests, (requests) => requests.create(cast.owner, requestInput))

/** The owner's request with a pending offer of the approved seller, and the pair's conversation. */
export const freshOffer = (cast: Cast) =>
  Effect.gen(function* () {
    const request = yield* freshRequest(cast)
    const { offer } = yield* (yield* Offers).create(cast.approvedSeller, offerInput(request.id))
    const conversation = Option.getOrThrow(yield* (yield* ConversationRepo).findByOfferId(offer.id))
    return { request, offer, conversation }
  })

/** An accepted deal of the owner with the approved seller. */
export const freshDeal = (cast: Cast) =>
  Effect.gen(function* () {
    const { offer } = yield* freshOffer(cast)
    return yield* (yield* Offers).accept(cast.owner, offer.id)
  })

/** A deal of the owner with the approved seller that the owner completed. */
export const completedDeal = (cast: Cast) =>
  Effect.gen(function* () {
    const deal = yield* freshDeal(cast)
    yield* (yield* Deals).complete(cast.owner, deal.id)
    return deal
  })

/** An id nothing has. */
export const unknownId = () => randomUUID()
