import {
  Chat,
  ConversationRepo,
  Deals,
  Memory,
  newUser,
  notificationsFor,
  Offers,
  Ratings,
  RequestSettings,
  Requests,
  SellerProfiles,
  UserRepo
} from "@talab/core"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * Core's use cases over its in-memory adapters: the same workflows (locks, transactions, events) the Talab server
 * runs on PostgreSQL, here with nothing to start. Build it once per "database".
 */
export const Marketplace = Layer.mergeAll(
  Requests.Default,
  Offers.Default,
  Deals.Default,
  Ratings.Default,
  SellerProfiles.Default,
  Chat.Default
).pipe(Layer.provide(RequestSettings.Default), Layer.provideMerge(Memory.InMemoryPorts))

/** Somebody signed in: here simply stored, where the server would have checked an SMS code first. */
const signUp = (id: string, phoneNumber: string, isAdmin = false) =>
  Effect.flatMap(UserRepo, (users) =>
    Effect.flatMap(
      Effect.clockWith((clock) => clock.currentTimeMillis),
      (ms) => users.insertOrGet(newUser({ id, phoneNumber, isAdmin, now: new Date(ms) }))
    )
  )

/**
 * A buyer asks for a phone, an approved seller offers, they chat, the buyer accepts, completes the deal and
 * rates the seller. Answers what each step left behind, and the notifications the outbox owes.
 */
export const wholeFlow = Effect.gen(function* () {
  const admin = yield* signUp("00000000-0000-4000-8000-000000000001", "+966500000001", true)
  const buyer = yield* signUp("00000000-0000-4000-8000-000000000002", "+966500000002")
  const seller = yield* signUp("00000000-0000-4000-8000-000000000003", "+966500000003")

  const sellerProfiles = yield* SellerProfiles
  const application = yield* sellerProfiles.apply(seller, {
    businessName: "متجر الجوال",
    locationDistrict: "Al Olaya",
    locationCity: "Riyadh"
  })
  const profile = yield* sellerProfiles.approve(admin, application.id)

  const request = yield* (yield* Requests).create(buyer, {
    category: "phone",
    productBrand: "Apple",
    productModel: "iPhone 15",
    conditionPref: "any",
    budgetMin: 2500,
    budgetMax: 3200,
    locationDistrict: "Al Olaya",
    locationCity: "Riyadh"
  })

  const offers = yield* Offers
  const { offer } = yield* offers.create(seller, offerOf(request.id))
  // Only an approved seller offers: the rule is core's, whoever runs it.
  const notASeller = yield* Effect.flip(offers.create(buyer, offerOf(request.id)))

  const conversation = Option.getOrThrow(yield* (yield* ConversationRepo).findByOfferId(offer.id))
  const nobodyOnline = () => Effect.succeed(false)
  const chat = yield* Chat
  yield* chat.send(buyer.id, conversation.id, { messageText: "Is it sealed?" }, nobodyOnline)
  const reply = yield* chat.send(seller.id, conversation.id, { messageText: "Yes, sealed." }, nobodyOnline)

  const deal = yield* offers.accept(buyer, offer.id)
  const deals = yield* Deals
  const completed = yield* deals.complete(buyer, deal.id)
  const rating = yield* (yield* Ratings).rate(buyer, { dealId: deal.id, rating: 5, reviewText: "Quick and honest" })
  const ratedProfile = yield* sellerProfiles.getPublic(profile.id)

  const tables = yield* Effect.flatMap(Memory.MemoryStore, (store) => store.committed)
  const storedRequest = HashMap.get(tables.requests, request.id).pipe(Option.getOrThrow)
  const owed = [...tables.outbox].flatMap(({ event }) => notificationsFor(event))

  return {
    profileStatus: profile.status,
    offerByNonSeller: notASeller._tag,
    messages: reply.message.seq,
    dealStatus: completed.status,
    requestStatus: storedRequest.status,
    rating: rating.rating,
    sellerRating: { average: ratedProfile.ratingAvg, count: ratedProfile.ratingCount },
    notifications: owed.map((notification) => `${notification.type} → ${notification.recipientId}`)
  }
})

const offerOf = (requestId: string) => ({
  requestId,
  price: 2900,
  availability: "today"
})
