import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  asConversationParty,
  Chat,
  ConversationRepo,
  DealRepo,
  Deals,
  NotFound,
  Offers,
  publiclyVisible,
  Ratings,
  Reports,
  Requests,
  requireApprovedSeller,
  requireDealParty,
  requireFound,
  requireReportedInDeal,
  SellerProfileRepo,
  SellerProfiles,
  type User,
  ValidationFailed
} from "../../src/index.js"
import { aSellerProfile } from "../ports/fixtures.js"
import {
  type Cast,
  completedDeal,
  type Env,
  freshDeal,
  freshOffer,
  freshRequest,
  Marketplace,
  makeCast,
  type Outcome,
  offerInput,
  outcomeOf,
  outcomes,
  type Role,
  roles,
  sellerWith,
  storeSnapshot,
  unknownId
} from "./cast.js"

/*
 * The authorization matrix of the marketplace's writes: each use case against every kind of signed-in caller, with
 * the outcome apps/server/test/e2e/marketplace-authz.test.ts expects of its endpoint (which probes one caller per
 * outcome over HTTP). Each cell runs on a fresh in-memory store, and a refused call must leave it as it was.
 */

type Call = (caller: User) => Effect.Effect<unknown, unknown, Env>

interface Row {
  /** The use case, or the rule the server's handler calls, and the endpoint it serves. */
  readonly name: string
  /** Fresh resources; answers the call each caller makes. */
  readonly arrange: (cast: Cast) => Effect.Effect<Call, unknown, Env>
  readonly expected: Record<Role, Outcome>
}

/** The write use cases, in the order of the e2e file's rows. */
const useCases: ReadonlyArray<Row> = [
  {
    name: "Requests.create (POST /requests)",
    arrange: () => Effect.map(Requests, (requests) => (caller) => requests.create(caller, requestBody)),
    expected: outcomes({}, "ok")
  },
  {
    name: "Requests.close (PUT /requests/{id}/close)",
    arrange: (cast) =>
      Effect.zipWith(
        freshRequest(cast),
        Requests,
        (request, requests) => (caller) => requests.close(caller, request.id)
      ),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Requests.extend (PUT /requests/{id}/extend)",
    arrange: (cast) =>
      Effect.zipWith(
        freshRequest(cast),
        Requests,
        (request, requests) => (caller) => requests.extend(caller, request.id)
      ),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Offers.create (POST /offers)",
    arrange: (cast) =>
      Effect.zipWith(
        freshRequest(cast),
        Offers,
        (request, offers) => (caller) => offers.create(caller, offerInput(request.id))
      ),
    expected: outcomes({ approvedSeller: "ok" }, "SellerNotApproved")
  },
  {
    name: "Offers.accept (POST /offers/{id}/accept)",
    arrange: (cast) =>
      Effect.zipWith(
        freshOffer(cast),
        Offers,
        ({ offer }, offers) =>
          (caller) =>
            offers.accept(caller, offer.id)
      ),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Offers.withdraw (DELETE /offers/{id})",
    arrange: (cast) =>
      Effect.zipWith(
        freshOffer(cast),
        Offers,
        ({ offer }, offers) =>
          (caller) =>
            offers.withdraw(caller, offer.id)
      ),
    expected: outcomes({ approvedSeller: "ok" }, "Forbidden")
  },
  {
    name: "Deals.complete (PUT /deals/{id}/complete)",
    arrange: (cast) =>
      Effect.zipWith(freshDeal(cast), Deals, (deal, deals) => (caller) => deals.complete(caller, deal.id)),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Deals.cancel (PUT /deals/{id}/cancel)",
    arrange: (cast) =>
      Effect.zipWith(
        freshDeal(cast),
        Deals,
        (deal, deals) => (caller) => deals.cancel(caller, deal.id, { reason: "Found it cheaper", description: "Sorry" })
      ),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Chat.send (POST /conversations/{id}/messages)",
    arrange: (cast) =>
      Effect.zipWith(
        freshOffer(cast),
        Chat,
        ({ conversation }, chat) =>
          (caller) =>
            chat.send(caller.id, conversation.id, { messageText: "Is it still available?" }, () =>
              Effect.succeed(false)
            )
      ),
    expected: outcomes({ owner: "ok", approvedSeller: "ok" }, "Forbidden")
  },
  {
    name: "Ratings.rate (POST /ratings)",
    arrange: (cast) =>
      Effect.zipWith(
        completedDeal(cast),
        Ratings,
        (deal, ratings) => (caller) => ratings.rate(caller, { dealId: deal.id, rating: 5, reviewText: "Great" })
      ),
    expected: outcomes({ owner: "ok" }, "Forbidden")
  },
  {
    name: "Reports.file without a deal (POST /reports)",
    arrange: (cast) =>
      Effect.map(
        Reports,
        (reports) => (caller) =>
          reports.file(caller, {
            reportedUserId: cast.approvedSeller.id,
            reason: "rude"
          })
      ),
    expected: outcomes({ approvedSeller: "CannotReportSelf" }, "ok")
  },
  {
    name: "Reports.file about a deal, by its parties only (POST /reports with deal_id)",
    arrange: (cast) =>
      Effect.zipWith(
        freshDeal(cast),
        Reports,
        (deal, reports) => (caller) =>
          reports.file(caller, {
            reportedUserId: cast.approvedSeller.id,
            dealId: deal.id,
            reason: "no_show"
          })
      ),
    // The seller is a party, so only the self-report rule stops them.
    expected: outcomes({ owner: "ok", approvedSeller: "CannotReportSelf" }, "Forbidden")
  },
  {
    name: "SellerProfiles.apply (POST /seller-profiles)",
    arrange: () => Effect.map(SellerProfiles, (profiles) => (caller) => profiles.apply(caller, application)),
    expected: outcomes(
      {
        approvedSeller: "SellerProfileExists",
        pendingSeller: "SellerProfileExists",
        suspendedSeller: "SellerProfileExists"
      },
      "ok"
    )
  },
  {
    name: "SellerProfiles.approve (PUT /admin/seller-profiles/{id}/approve)",
    arrange: () =>
      Effect.zipWith(
        applicantProfile,
        SellerProfiles,
        (profile, profiles) => (caller) => profiles.approve(caller, profile.id)
      ),
    expected: outcomes({ admin: "ok" }, "Forbidden")
  },
  {
    name: "SellerProfiles.reject (PUT /admin/seller-profiles/{id}/reject)",
    arrange: () =>
      Effect.zipWith(
        applicantProfile,
        SellerProfiles,
        (profile, profiles) => (caller) => profiles.reject(caller, profile.id)
      ),
    expected: outcomes({ admin: "ok" }, "Forbidden")
  },
  {
    name: "SellerProfiles.suspend (PUT /admin/seller-profiles/{id}/suspend)",
    arrange: () =>
      Effect.zipWith(
        profileOfStatus("approved"),
        SellerProfiles,
        (profile, profiles) => (caller) => profiles.suspend(caller, profile.id)
      ),
    expected: outcomes({ admin: "ok" }, "Forbidden")
  },
  {
    name: "SellerProfiles.reinstate (PUT /admin/seller-profiles/{id}/reinstate)",
    arrange: () =>
      Effect.zipWith(
        profileOfStatus("suspended"),
        SellerProfiles,
        (profile, profiles) => (caller) => profiles.reinstate(caller, profile.id)
      ),
    expected: outcomes({ admin: "ok" }, "Forbidden")
  },
  {
    name: "Reports.resolve (PUT /admin/reports/{id}/resolve)",
    arrange: (cast) =>
      Effect.gen(function* () {
        const reports = yield* Reports
        const report = yield* reports.file(cast.owner, {
          reportedUserId: cast.otherBuyer.id,
          reason: "scam"
        })
        return (caller: User) => reports.resolve(caller, report.id, { action: "warn", notes: "First warning" })
      }),
    expected: outcomes({ admin: "ok" }, "Forbidden")
  }
]

/** Core's rules that the server's own handlers call (reads, read receipts, seller alerts), with their endpoints. */
const handlerRules: ReadonlyArray<Row> = [
  {
    name: "asConversationParty (GET /conversations/{id}/messages, PUT …/read)",
    arrange: (cast) =>
      Effect.gen(function* () {
        const { conversation } = yield* freshOffer(cast)
        const found = yield* (yield* ConversationRepo).findById(conversation.id)
        return (caller: User) => asConversationParty(found, caller.id)
      }),
    expected: outcomes({ owner: "ok", approvedSeller: "ok" }, "Forbidden")
  },
  {
    name: "requireDealParty (GET /deals/{id})",
    arrange: (cast) => Effect.map(freshDeal(cast), (deal) => (caller) => requireDealParty(deal, caller)),
    expected: outcomes({ owner: "ok", approvedSeller: "ok" }, "Forbidden")
  },
  {
    name: "requireApprovedSeller of the caller's profile (seller alerts)",
    arrange: () =>
      Effect.map(
        SellerProfileRepo,
        (profiles) => (caller) => Effect.flatMap(profiles.findByUserId(caller.id), requireApprovedSeller)
      ),
    expected: outcomes({ approvedSeller: "ok" }, "SellerNotApproved")
  }
]

const requestBody = {
  category: "phone",
  productBrand: "Samsung",
  productModel: "Galaxy S24",
  conditionPref: "new",
  budgetMin: 2000,
  budgetMax: 3000,
  locationDistrict: "Al Olaya",
  locationCity: "Riyadh"
} as const
const application = { businessName: "Riyadh Phones", locationDistrict: "Olaya", locationCity: "Riyadh" }

/** The profile, in `status`, of a seller who is none of the cast. */
const profileOfStatus = (status: Parameters<typeof sellerWith>[0]) =>
  Effect.flatMap(sellerWith(status), (seller) =>
    Effect.flatMap(
      Effect.flatMap(SellerProfileRepo, (profiles) => profiles.findByUserId(seller.id)),
      requireFound("seller_profile")
    )
  )

/** The pending profile of an applicant who is none of the cast. */
const applicantProfile = profileOfStatus("pending")

const matrix = (rows: ReadonlyArray<Row>) => {
  for (const row of rows) {
    describe(row.name, () => {
      for (const role of roles) {
        const expected = row.expected[role]
        it.effect(`as ${role} → ${expected}`, () =>
          Effect.gen(function* () {
            const cast = yield* makeCast
            const call = yield* row.arrange(cast)
            const before = yield* storeSnapshot
            expect(outcomeOf(yield* Effect.exit(call(cast[role])))).toBe(expected)
            if (expected !== "ok") expect(yield* storeSnapshot, "a refused call changed something").toEqual(before)
          }).pipe(Effect.provide(Marketplace))
        )
      }
    })
  }
}

describe("authorization of the write use cases", () => matrix(useCases))
describe("authorization rules the server's handlers call", () => matrix(handlerRules))

/** Calls the caller would be allowed to make, naming an id nothing has: `NotFound`, never `Forbidden`. */
const unknownIds: ReadonlyArray<{
  readonly name: string
  readonly call: (cast: Cast) => Effect.Effect<unknown, unknown, Env>
}> = [
  { name: "Requests.close", call: (cast) => Effect.flatMap(Requests, (r) => r.close(cast.owner, unknownId())) },
  { name: "Requests.extend", call: (cast) => Effect.flatMap(Requests, (r) => r.extend(cast.owner, unknownId())) },
  {
    name: "Offers.create on an unknown request",
    call: (cast) => Effect.flatMap(Offers, (o) => o.create(cast.approvedSeller, offerInput(unknownId())))
  },
  { name: "Offers.accept", call: (cast) => Effect.flatMap(Offers, (o) => o.accept(cast.owner, unknownId())) },
  {
    name: "Offers.withdraw",
    call: (cast) => Effect.flatMap(Offers, (o) => o.withdraw(cast.approvedSeller, unknownId()))
  },
  { name: "Deals.complete", call: (cast) => Effect.flatMap(Deals, (d) => d.complete(cast.owner, unknownId())) },
  {
    name: "Deals.cancel",
    call: (cast) => Effect.flatMap(Deals, (d) => d.cancel(cast.owner, unknownId(), { reason: "No longer needed" }))
  },
  {
    name: "Chat.send",
    call: (cast) =>
      Effect.flatMap(Chat, (c) =>
        c.send(cast.owner.id, unknownId(), { messageText: "Hello" }, () => Effect.succeed(false))
      )
  },
  {
    name: "Ratings.rate on an unknown deal",
    call: (cast) => Effect.flatMap(Ratings, (r) => r.rate(cast.owner, { dealId: unknownId(), rating: 4 }))
  },
  {
    name: "Reports.file about an unknown user",
    call: (cast) => Effect.flatMap(Reports, (r) => r.file(cast.owner, { reportedUserId: unknownId(), reason: "scam" }))
  },
  {
    name: "Reports.file about an unknown deal",
    call: (cast) =>
      Effect.flatMap(Reports, (r) =>
        r.file(cast.owner, {
          reportedUserId: cast.approvedSeller.id,
          dealId: unknownId(),
          reason: "scam"
        })
      )
  },
  {
    name: "SellerProfiles.approve",
    call: (cast) => Effect.flatMap(SellerProfiles, (p) => p.approve(cast.admin, unknownId()))
  },
  {
    name: "SellerProfiles.reject",
    call: (cast) => Effect.flatMap(SellerProfiles, (p) => p.reject(cast.admin, unknownId()))
  },
  {
    name: "SellerProfiles.suspend",
    call: (cast) => Effect.flatMap(SellerProfiles, (p) => p.suspend(cast.admin, unknownId()))
  },
  {
    name: "SellerProfiles.reinstate",
    call: (cast) => Effect.flatMap(SellerProfiles, (p) => p.reinstate(cast.admin, unknownId()))
  },
  {
    name: "Reports.resolve",
    call: (cast) => Effect.flatMap(Reports, (r) => r.resolve(cast.admin, unknownId(), { action: "dismiss" }))
  },
  { name: "SellerProfiles.getPublic", call: () => Effect.flatMap(SellerProfiles, (p) => p.getPublic(unknownId())) }
]

describe("unknown ids", () => {
  for (const { name, call } of unknownIds) {
    it.effect(`${name} → NotFound`, () =>
      Effect.gen(function* () {
        const cast = yield* makeCast
        const before = yield* storeSnapshot
        expect(outcomeOf(yield* Effect.exit(call(cast)))).toBe("NotFound")
        expect(yield* storeSnapshot).toEqual(before)
      }).pipe(Effect.provide(Marketplace))
    )
  }
})

describe("SellerProfiles.getPublic (GET /seller-profiles/{id}): the same for every caller, none needed", () => {
  it.effect("shows an approved profile, and answers NotFound for a pending, suspended or rejected one", () =>
    Effect.gen(function* () {
      const profiles = yield* SellerProfiles
      const repo = yield* SellerProfileRepo
      const visible = (status: "approved" | "pending" | "suspended" | "rejected") =>
        Effect.gen(function* () {
          const user = yield* sellerWith(status)
          const profile = Option.getOrThrow(yield* repo.findByUserId(user.id))
          return outcomeOf(yield* Effect.exit(profiles.getPublic(profile.id)))
        })
      expect(yield* visible("approved")).toBe("ok")
      expect(yield* visible("pending")).toBe("NotFound")
      expect(yield* visible("suspended")).toBe("NotFound")
      expect(yield* visible("rejected")).toBe("NotFound")
    }).pipe(Effect.provide(Marketplace))
  )
})

describe("Access rules no matrix above reaches", () => {
  it.effect("requireApprovedSeller refuses a rejected applicant too", () =>
    Effect.gen(function* () {
      const profile = aSellerProfile(unknownId(), { status: "rejected" })
      expect(outcomeOf(yield* Effect.exit(requireApprovedSeller(Option.some(profile))))).toBe("SellerNotApproved")
      expect(outcomeOf(yield* Effect.exit(requireApprovedSeller(Option.none())))).toBe("SellerNotApproved")
    })
  )

  it.effect("publiclyVisible passes approved profiles only", () =>
    Effect.gen(function* () {
      for (const status of ["pending", "rejected", "suspended"] as const) {
        const refused = yield* Effect.flip(publiclyVisible(aSellerProfile(unknownId(), { status })))
        expect(refused).toEqual(new NotFound({ resource: "seller_profile" }))
      }
      const approved = aSellerProfile(unknownId(), { status: "approved" })
      expect(yield* publiclyVisible(approved)).toBe(approved)
    })
  )

  it.effect("asConversationParty answers NotFound for no conversation, whoever asks", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(asConversationParty(Option.none(), unknownId()))).toEqual(
        new NotFound({ resource: "conversation" })
      )
    })
  )

  it.effect("requireReportedInDeal: a report about a deal names one of its parties", () =>
    Effect.gen(function* () {
      const cast = yield* makeCast
      const deal = yield* freshDeal(cast)
      yield* requireReportedInDeal(deal, cast.owner.id)
      yield* requireReportedInDeal(deal, cast.approvedSeller.id)
      expect(yield* Effect.flip(requireReportedInDeal(deal, cast.otherBuyer.id))).toEqual(
        ValidationFailed.field("reported_user_id", "reported_user_not_in_deal")
      )
      const reports = yield* Reports
      const before = yield* storeSnapshot
      const refused = yield* Effect.flip(
        reports.file(cast.owner, {
          reportedUserId: cast.otherBuyer.id,
          dealId: deal.id,
          reason: "scam"
        })
      )
      expect(refused).toBeInstanceOf(ValidationFailed)
      expect(yield* storeSnapshot).toEqual(before)
      expect(Option.isSome(yield* (yield* DealRepo).findById(deal.id))).toBe(true)
    }).pipe(Effect.provide(Marketplace))
  )

  it.effect("requireFound names the resource it did not find", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(requireFound("deal")(Option.none()))).toEqual(new NotFound({ resource: "deal" }))
      expect(yield* requireFound("deal")(Option.some(1))).toBe(1)
    })
  )
})
