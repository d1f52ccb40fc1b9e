import { beforeAll, describe, expect, it } from "vitest"
import {
  expectError,
  expectStatus,
  Marketplace,
  marketplaceSettings,
  offerBody,
  profileBody,
  requestBody,
  type Seller,
  unknownId
} from "../support/fixtures.js"
import { backends, client, newPhone, type Query, type SignedIn, useServer } from "../support/harness.js"

/*
 * Who may call what: every marketplace endpoint against every kind of caller, as the spec's role table
 * (service-spec "Authentication" 6) and decisions.md section 4 say. Each cell builds fresh resources,
 * so a cell never depends on what another did.
 *
 * `rows` keep the whole table. Where a rule is core's, its full matrix of signed-in callers is a core test, in
 * packages/core/test/authorization/authorization.test.ts, run on the in-memory ports; here a row naming it (`core`)
 * probes over HTTP the first caller of each distinct outcome, and anonymous. The other rows (the lists and reads
 * the server's queries decide, and /admin/*, refused by the AdminOnly middleware before any use case) probe
 * every caller. Where each cell that left this file now lives:
 *
 * In "authorization of the write use cases > <use case> (<endpoint>) > as <role> → <outcome>":
 *   POST /requests                     -> Requests.create (POST /requests)
 *   PUT /requests/{id}/close           -> Requests.close (PUT /requests/{id}/close)
 *   PUT /requests/{id}/extend          -> Requests.extend (PUT /requests/{id}/extend)
 *   POST /offers                       -> Offers.create (POST /offers)
 *   POST /offers/{id}/accept           -> Offers.accept (POST /offers/{id}/accept)
 *   DELETE /offers/{id}                -> Offers.withdraw (DELETE /offers/{id})
 *   PUT /deals/{id}/complete           -> Deals.complete (PUT /deals/{id}/complete)
 *   PUT /deals/{id}/cancel             -> Deals.cancel (PUT /deals/{id}/cancel)
 *   POST /conversations/{id}/messages  -> Chat.send (POST /conversations/{id}/messages)
 *   POST /ratings                      -> Ratings.rate (POST /ratings)
 *   POST /reports (no deal_id)         -> Reports.file without a deal (POST /reports)
 *   POST /reports (with deal_id)       -> Reports.file about a deal, by its parties only (POST /reports with deal_id)
 *   POST /seller-profiles              -> SellerProfiles.apply (POST /seller-profiles)
 * In "authorization rules the server's handlers call > <rule> (<endpoints>) > as <role> → <outcome>":
 *   GET /deals/{id}                    -> requireDealParty (GET /deals/{id})
 *   GET /conversations/{id}/messages,
 *   PUT /conversations/{id}/read       -> asConversationParty (GET /conversations/{id}/messages, PUT …/read)
 *   GET, POST /seller-profiles/me/alerts, DELETE /seller-profiles/me/alerts/{id},
 *   GET, PUT /seller-profiles/me/alert-settings
 *                                      -> requireApprovedSeller of the caller's profile (seller alerts)
 * In "SellerProfiles.getPublic (GET /seller-profiles/{id}): the same for every caller, none needed":
 *   GET /seller-profiles/{id} of an approved, pending, suspended, rejected seller
 *                                      -> shows an approved profile, and answers NotFound for a pending, …
 */

type Role = "owner" | "otherBuyer" | "approvedSeller" | "pendingSeller" | "suspendedSeller" | "admin" | "anonymous"
const roles: ReadonlyArray<Role> = [
  "owner",
  "otherBuyer",
  "approvedSeller",
  "pendingSeller",
  "suspendedSeller",
  "admin",
  "anonymous"
]

/** A status, and the error code when it is an error. */
type Outcome = readonly [status: number, code?: string]
const ok: Outcome = [200]
const created: Outcome = [201]
const unauthorized: Outcome = [401, "UNAUTHORIZED"]
const forbidden: Outcome = [403, "FORBIDDEN"]
const sellerNotApproved: Outcome = [403, "SELLER_NOT_APPROVED"]
const notFound: Outcome = [404, "NOT_FOUND"]
const cannotReportSelf: Outcome = [422, "CANNOT_REPORT_SELF"]
const profileExists: Outcome = [422, "SELLER_PROFILE_EXISTS"]

type Caller = Exclude<Role, "anonymous">
/** The given callers get their outcome, every other signed-in caller `otherwise`, no token 401. */
const outcomes = (given: Partial<Record<Caller, Outcome>>, otherwise: Outcome): Record<Role, Outcome> => ({
  owner: given.owner ?? otherwise,
  otherBuyer: given.otherBuyer ?? otherwise,
  approvedSeller: given.approvedSeller ?? otherwise,
  pendingSeller: given.pendingSeller ?? otherwise,
  suspendedSeller: given.suspendedSeller ?? otherwise,
  admin: given.admin ?? otherwise,
  anonymous: unauthorized
})
const anyAuthenticated = (outcome: Outcome) => outcomes({}, outcome)
const everyone = (outcome: Outcome): Record<Role, Outcome> => ({ ...outcomes({}, outcome), anonymous: outcome })

interface Call {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  readonly path: string
  readonly body?: unknown
  /** For a write: what a refused call must leave unchanged. */
  readonly state?: () => Promise<unknown>
}

/** The callers of one suite, each made the first time a cell needs it. */
class Actors {
  private readonly made = new Map<string, Promise<SignedIn | Seller>>()
  constructor(readonly m: Marketplace) {}
  private once<A extends SignedIn>(key: string, make: () => Promise<A>): Promise<A> {
    if (!this.made.has(key)) this.made.set(key, make())
    return this.made.get(key) as Promise<A>
  }
  owner = () => this.once("owner", () => this.m.buyer("Request Owner"))
  otherBuyer = () => this.once("otherBuyer", () => this.m.buyer("Other Buyer"))
  approvedSeller = () => this.once("approvedSeller", () => this.m.approvedSeller("Approved Seller"))
  pendingSeller = () => this.once("pendingSeller", () => this.m.pendingSeller("Pending Seller"))
  suspendedSeller = () => this.once("suspendedSeller", () => this.m.suspendedSeller("Suspended Seller"))
  admin = () => this.m.adminUser()

  async as(role: Role): Promise<SignedIn | undefined> {
    return role === "anonymous" ? undefined : this[role]()
  }
}

interface Row {
  readonly endpoint: string
  /** Fresh resources for one call. */
  readonly call: (a: Actors) => Promise<Call>
  readonly expected: Record<Role, Outcome>
  /**
   * The core test (its name starts so) that holds this row's full matrix of signed-in callers: then only the
   * first caller of each distinct outcome, and anonymous, are probed here.
   */
  readonly core?: string
  /**
   * The call gives the caller a seller profile: callers who have none (owner, other buyer, admin) are
   * replaced by fresh users of the same kind so the others keep having none.
   */
  readonly consumesProfileless?: true
}

const conversationPath = async <Suffix extends string>(a: Actors, suffix: Suffix) => {
  const { offer } = await a.m.pendingOffer(await a.owner(), await a.approvedSeller())
  const conversation = await a.m.conversationOf(await a.approvedSeller(), offer.id)
  return `/conversations/${conversation.id}${suffix}` as const
}

/** How many reports the admin list holds. */
const reportTotal = async (a: Actors) =>
  (await a.m.api.get("/admin/reports?per_page=1", { token: (await a.admin()).token })).body.data.pagination.total

/** A fresh deal of the owner with the approved seller, and its read-back. */
const freshDeal = async (a: Actors) => {
  const owner = await a.owner()
  const { deal } = await a.m.deal(owner, await a.approvedSeller())
  return { deal, state: () => a.m.dealDetail(owner, deal.id) }
}
/** A fresh request of the owner with a pending offer of the approved seller, and their read-back. */
const freshOffer = async (a: Actors) => {
  const owner = await a.owner()
  const { request, offer } = await a.m.pendingOffer(owner, await a.approvedSeller())
  return {
    request,
    offer,
    state: async () => [await a.m.requestDetail(owner, request.id), await a.m.offersOf(owner, request.id)]
  }
}

const rows: ReadonlyArray<Row> = [
  // Buy requests
  {
    endpoint: "POST /requests",
    core: "Requests.create",
    call: async () => ({ method: "POST", path: "/requests", body: requestBody() }),
    expected: anyAuthenticated(created)
  },
  {
    endpoint: "GET /requests",
    call: async () => ({ method: "GET", path: "/requests" }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "GET /requests/my",
    call: async () => ({ method: "GET", path: "/requests/my" }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "GET /requests/{id}",
    call: async (a) => ({ method: "GET", path: `/requests/${(await a.m.createRequest(await a.owner())).id}` }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "PUT /requests/{id}/close",
    core: "Requests.close",
    call: async (a) => {
      const request = await a.m.createRequest(await a.owner())
      return {
        method: "PUT",
        path: `/requests/${request.id}/close`,
        state: async () => a.m.requestDetail(await a.owner(), request.id)
      }
    },
    expected: outcomes({ owner: ok }, forbidden)
  },
  {
    endpoint: "PUT /requests/{id}/extend",
    core: "Requests.extend",
    call: async (a) => {
      const request = await a.m.createRequest(await a.owner())
      return {
        method: "PUT",
        path: `/requests/${request.id}/extend`,
        state: async () => a.m.requestDetail(await a.owner(), request.id)
      }
    },
    expected: outcomes({ owner: ok }, forbidden)
  },
  // Offers
  {
    endpoint: "POST /offers",
    core: "Offers.create",
    call: async (a) => {
      const request = await a.m.createRequest(await a.owner())
      return {
        method: "POST",
        path: "/offers",
        body: offerBody(request.id),
        state: async () => [
          await a.m.requestDetail(await a.owner(), request.id),
          await a.m.offersOf(await a.owner(), request.id)
        ]
      }
    },
    expected: outcomes({ approvedSeller: created }, sellerNotApproved)
  },
  {
    endpoint: "GET /requests/{id}/offers",
    call: async (a) => {
      const { request } = await a.m.pendingOffer(await a.owner(), await a.approvedSeller())
      return { method: "GET", path: `/requests/${request.id}/offers` }
    },
    expected: outcomes({ owner: ok, approvedSeller: ok }, forbidden)
  },
  {
    endpoint: "GET /offers/my",
    call: async () => ({ method: "GET", path: "/offers/my" }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "POST /offers/{id}/accept",
    core: "Offers.accept",
    call: async (a) => {
      const { offer, state } = await freshOffer(a)
      return { method: "POST", path: `/offers/${offer.id}/accept`, state }
    },
    expected: outcomes({ owner: ok }, forbidden)
  },
  {
    endpoint: "DELETE /offers/{id}",
    core: "Offers.withdraw",
    call: async (a) => {
      const { offer, state } = await freshOffer(a)
      return { method: "DELETE", path: `/offers/${offer.id}`, state }
    },
    expected: outcomes({ approvedSeller: ok }, forbidden)
  },
  // Deals
  {
    endpoint: "GET /deals/my",
    call: async () => ({ method: "GET", path: "/deals/my" }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "GET /deals/{id}",
    core: "requireDealParty",
    call: async (a) => ({
      method: "GET",
      path: `/deals/${(await a.m.deal(await a.owner(), await a.approvedSeller())).deal.id}`
    }),
    expected: outcomes({ owner: ok, approvedSeller: ok }, forbidden)
  },
  {
    endpoint: "PUT /deals/{id}/complete",
    core: "Deals.complete",
    call: async (a) => {
      const { deal, state } = await freshDeal(a)
      return { method: "PUT", path: `/deals/${deal.id}/complete`, state }
    },
    expected: outcomes({ owner: ok }, forbidden)
  },
  {
    endpoint: "PUT /deals/{id}/cancel",
    core: "Deals.cancel",
    call: async (a) => {
      const { deal, state } = await freshDeal(a)
      return {
        method: "PUT",
        path: `/deals/${deal.id}/cancel`,
        body: { reason: "Found it cheaper", description: "Sorry" },
        state
      }
    },
    expected: outcomes({ owner: ok }, forbidden)
  },
  // Chat
  {
    endpoint: "GET /conversations/my",
    call: async () => ({ method: "GET", path: "/conversations/my" }),
    expected: anyAuthenticated(ok)
  },
  {
    endpoint: "GET /conversations/{id}/messages",
    core: "asConversationParty",
    call: async (a) => ({ method: "GET", path: await conversationPath(a, "/messages") }),
    expected: outcomes({ owner: ok, approvedSeller: ok }, forbidden)
  },
  {
    endpoint: "POST /conversations/{id}/messages",
    core: "Chat.send",
    call: async (a) => {
      const path = await conversationPath(a, "/messages")
      return {
        method: "POST",
        path,
        body: { message_text: "Is it still available?" },
        state: async () => (await a.m.api.get(path, { token: (await a.owner()).token })).body.data.messages
      }
    },
    expected: outcomes({ owner: created, approvedSeller: created }, forbidden)
  },
  {
    endpoint: "PUT /conversations/{id}/read",
    core: "asConversationParty",
    call: async (a) => ({ method: "PUT", path: await conversationPath(a, "/read"), body: { up_to_seq: 1 } }),
    expected: outcomes({ owner: ok, approvedSeller: ok }, forbidden)
  },
  // Ratings and reports
  {
    endpoint: "POST /ratings",
    core: "Ratings.rate",
    call: async (a) => {
      const { deal } = await a.m.completedDeal(await a.owner(), await a.approvedSeller())
      return {
        method: "POST",
        path: "/ratings",
        body: { deal_id: deal.id, rating: 5, review_text: "Great" },
        state: async () => (await a.m.me(await a.approvedSeller())).seller_profile
      }
    },
    expected: outcomes({ owner: created }, forbidden)
  },
  {
    endpoint: "POST /reports (no deal_id)",
    core: "Reports.file without a deal",
    call: async (a) => ({
      method: "POST",
      path: "/reports",
      body: { reported_user_id: (await a.approvedSeller()).userId, reason: "rude" },
      state: () => reportTotal(a)
    }),
    expected: outcomes({ approvedSeller: cannotReportSelf }, created)
  },
  {
    endpoint: "POST /reports (with deal_id: parties only)",
    core: "Reports.file about a deal",
    call: async (a) => {
      const { deal } = await a.m.deal(await a.owner(), await a.approvedSeller())
      return {
        method: "POST",
        path: "/reports",
        body: { reported_user_id: (await a.approvedSeller()).userId, deal_id: deal.id, reason: "no_show" },
        state: () => reportTotal(a)
      }
    },
    // The seller is a party, so only the self-report rule stops them (403 would outrank 422 otherwise).
    expected: outcomes({ owner: created, approvedSeller: cannotReportSelf }, forbidden)
  },
  // Seller profiles
  {
    endpoint: "POST /seller-profiles",
    core: "SellerProfiles.apply",
    call: async () => ({ method: "POST", path: "/seller-profiles", body: profileBody() }),
    expected: outcomes(
      { approvedSeller: profileExists, pendingSeller: profileExists, suspendedSeller: profileExists },
      created
    ),
    consumesProfileless: true
  },
  {
    endpoint: "GET /seller-profiles/{id} of an approved seller (public)",
    core: "SellerProfiles.getPublic",
    call: async (a) => ({ method: "GET", path: `/seller-profiles/${(await a.approvedSeller()).profileId}` }),
    expected: everyone(ok)
  },
  {
    endpoint: "GET /seller-profiles/{id} of a pending seller",
    core: "SellerProfiles.getPublic",
    call: async (a) => ({ method: "GET", path: `/seller-profiles/${(await a.pendingSeller()).profileId}` }),
    expected: everyone(notFound)
  },
  {
    endpoint: "GET /seller-profiles/{id} of a suspended seller",
    core: "SellerProfiles.getPublic",
    call: async (a) => ({ method: "GET", path: `/seller-profiles/${(await a.suspendedSeller()).profileId}` }),
    expected: everyone(notFound)
  },
  {
    endpoint: "GET /seller-profiles/{id} of a rejected seller",
    core: "SellerProfiles.getPublic",
    call: async (a) => {
      const applicant = await a.m.pendingSeller("Rejected Seller")
      const admin = await a.admin()
      await a.m.api.put(`/admin/seller-profiles/${applicant.profileId}/reject`, { token: admin.token })
      return { method: "GET", path: `/seller-profiles/${applicant.profileId}` }
    },
    expected: everyone(notFound)
  },
  // Seller alerts: approved sellers only (another seller's rule id is 404, in seller-alerts.test.ts)
  {
    endpoint: "GET /seller-profiles/me/alerts",
    core: "requireApprovedSeller",
    call: async () => ({ method: "GET", path: "/seller-profiles/me/alerts" }),
    expected: outcomes({ approvedSeller: ok }, sellerNotApproved)
  },
  {
    endpoint: "POST /seller-profiles/me/alerts",
    core: "requireApprovedSeller",
    call: async () => ({
      method: "POST",
      path: "/seller-profiles/me/alerts",
      body: { categories: ["phone"], cities: ["Riyadh"] }
    }),
    expected: outcomes({ approvedSeller: created }, sellerNotApproved)
  },
  {
    endpoint: "DELETE /seller-profiles/me/alerts/{id} of the approved seller's rule",
    core: "requireApprovedSeller",
    call: async (a) => {
      const created = await a.m.api.post("/seller-profiles/me/alerts", {
        token: (await a.approvedSeller()).token,
        body: { categories: ["accessory"], cities: ["Jeddah"] }
      })
      return { method: "DELETE", path: `/seller-profiles/me/alerts/${created.body.data.id}` }
    },
    expected: outcomes({ approvedSeller: ok }, sellerNotApproved)
  },
  {
    endpoint: "GET /seller-profiles/me/alert-settings",
    core: "requireApprovedSeller",
    call: async () => ({ method: "GET", path: "/seller-profiles/me/alert-settings" }),
    expected: outcomes({ approvedSeller: ok }, sellerNotApproved)
  },
  {
    endpoint: "PUT /seller-profiles/me/alert-settings",
    core: "requireApprovedSeller",
    call: async () => ({
      method: "PUT",
      path: "/seller-profiles/me/alert-settings",
      body: { quiet_from: null, quiet_to: null, time_zone: null }
    }),
    expected: outcomes({ approvedSeller: ok }, sellerNotApproved)
  },
  // Admin
  {
    endpoint: "GET /admin/seller-profiles/pending",
    call: async () => ({ method: "GET", path: "/admin/seller-profiles/pending" }),
    expected: outcomes({ admin: ok }, forbidden)
  },
  {
    endpoint: "PUT /admin/seller-profiles/{id}/approve",
    call: async (a) => {
      const applicant = await a.m.pendingSeller("Applicant")
      return {
        method: "PUT",
        path: `/admin/seller-profiles/${applicant.profileId}/approve`,
        state: () => a.m.me(applicant)
      }
    },
    expected: outcomes({ admin: ok }, forbidden)
  },
  {
    endpoint: "PUT /admin/seller-profiles/{id}/reject",
    call: async (a) => {
      const applicant = await a.m.pendingSeller("Applicant")
      return {
        method: "PUT",
        path: `/admin/seller-profiles/${applicant.profileId}/reject`,
        state: () => a.m.me(applicant)
      }
    },
    expected: outcomes({ admin: ok }, forbidden)
  },
  {
    endpoint: "GET /admin/reports",
    call: async () => ({ method: "GET", path: "/admin/reports" }),
    expected: outcomes({ admin: ok }, forbidden)
  },
  {
    endpoint: "PUT /admin/reports/{id}/resolve",
    call: async (a) => {
      // A reporter of its own per caller: one reporter keeps one pending report about a user.
      const report = await a.m.report(await a.m.buyer("Reporter"), (await a.otherBuyer()).userId)
      return {
        method: "PUT",
        path: `/admin/reports/${report.id}/resolve`,
        body: { action: "warn", notes: "First warning" },
        state: () => a.m.adminReport(report.id)
      }
    },
    expected: outcomes({ admin: ok }, forbidden)
  }
]

/** Calls that would be allowed for the caller but name an id that does not exist: 404, never 403 or 500. */
const unknownIds: ReadonlyArray<{
  readonly endpoint: string
  readonly role: Role
  readonly call: (a: Actors) => Promise<Call>
}> = [
  {
    endpoint: "GET /requests/{id}",
    role: "owner",
    call: async () => ({ method: "GET", path: `/requests/${unknownId()}` })
  },
  {
    endpoint: "PUT /requests/{id}/close",
    role: "owner",
    call: async () => ({ method: "PUT", path: `/requests/${unknownId()}/close` })
  },
  {
    endpoint: "PUT /requests/{id}/extend",
    role: "owner",
    call: async () => ({ method: "PUT", path: `/requests/${unknownId()}/extend` })
  },
  {
    endpoint: "GET /requests/{id}/offers",
    role: "owner",
    call: async () => ({ method: "GET", path: `/requests/${unknownId()}/offers` })
  },
  {
    endpoint: "POST /offers with an unknown request_id",
    role: "approvedSeller",
    call: async () => ({ method: "POST", path: "/offers", body: offerBody(unknownId()) })
  },
  {
    endpoint: "POST /offers/{id}/accept",
    role: "owner",
    call: async () => ({ method: "POST", path: `/offers/${unknownId()}/accept` })
  },
  {
    endpoint: "DELETE /offers/{id}",
    role: "approvedSeller",
    call: async () => ({ method: "DELETE", path: `/offers/${unknownId()}` })
  },
  {
    endpoint: "GET /deals/{id} (party-less caller)",
    role: "otherBuyer",
    call: async () => ({ method: "GET", path: `/deals/${unknownId()}` })
  },
  {
    endpoint: "PUT /deals/{id}/complete",
    role: "owner",
    call: async () => ({ method: "PUT", path: `/deals/${unknownId()}/complete` })
  },
  {
    endpoint: "PUT /deals/{id}/cancel",
    role: "owner",
    call: async () => ({ method: "PUT", path: `/deals/${unknownId()}/cancel`, body: { reason: "No longer needed" } })
  },
  {
    endpoint: "GET /conversations/{id}/messages",
    role: "otherBuyer",
    call: async () => ({ method: "GET", path: `/conversations/${unknownId()}/messages` })
  },
  {
    endpoint: "POST /conversations/{id}/messages",
    role: "owner",
    call: async () => ({
      method: "POST",
      path: `/conversations/${unknownId()}/messages`,
      body: { message_text: "Hello" }
    })
  },
  {
    endpoint: "PUT /conversations/{id}/read",
    role: "owner",
    call: async () => ({ method: "PUT", path: `/conversations/${unknownId()}/read`, body: { up_to_seq: 1 } })
  },
  {
    endpoint: "POST /ratings with an unknown deal_id",
    role: "owner",
    call: async () => ({ method: "POST", path: "/ratings", body: { deal_id: unknownId(), rating: 4 } })
  },
  {
    endpoint: "POST /reports with an unknown reported_user_id",
    role: "owner",
    call: async () => ({ method: "POST", path: "/reports", body: { reported_user_id: unknownId(), reason: "scam" } })
  },
  {
    endpoint: "POST /reports with an unknown deal_id",
    role: "owner",
    call: async (a) => ({
      method: "POST",
      path: "/reports",
      body: { reported_user_id: (await a.approvedSeller()).userId, deal_id: unknownId(), reason: "scam" }
    })
  },
  {
    endpoint: "GET /seller-profiles/{id}",
    role: "anonymous",
    call: async () => ({ method: "GET", path: `/seller-profiles/${unknownId()}` })
  },
  {
    endpoint: "PUT /admin/seller-profiles/{id}/approve",
    role: "admin",
    call: async () => ({ method: "PUT", path: `/admin/seller-profiles/${unknownId()}/approve` })
  },
  {
    endpoint: "PUT /admin/seller-profiles/{id}/reject",
    role: "admin",
    call: async () => ({ method: "PUT", path: `/admin/seller-profiles/${unknownId()}/reject` })
  },
  {
    endpoint: "PUT /admin/reports/{id}/resolve",
    role: "admin",
    call: async () => ({ method: "PUT", path: `/admin/reports/${unknownId()}/resolve`, body: { action: "dismiss" } })
  }
]

const show = ([status, code]: Outcome) => (code ? `${status} ${code}` : `${status}`)

/** Every caller of a row, or for a row whose matrix core tests, anonymous and the first caller of each outcome. */
const probed = (row: Row): ReadonlyArray<Role> => {
  if (row.core === undefined) return roles
  const outcomesSeen = new Set<string>()
  return roles.filter((role) => {
    const outcome = show(row.expected[role])
    if (role !== "anonymous" && outcomesSeen.has(outcome)) return false
    outcomesSeen.add(outcome)
    return true
  })
}

describe.each(backends)("marketplace authorization on %s", (backend) => {
  const adminPhone = newPhone()
  const spareAdminPhone = newPhone()
  const server = useServer(backend, marketplaceSettings([adminPhone, spareAdminPhone]))
  let m: Marketplace
  let actors: Actors
  beforeAll(() => {
    m = new Marketplace(server(), client(server()), adminPhone)
    actors = new Actors(m)
  })

  const send = (call: Call, caller: SignedIn | undefined) =>
    m.api.raw.call(call.method, call.path, {
      ...(caller ? { token: caller.token } : {}),
      ...(call.body !== undefined ? { body: call.body } : {})
    })

  const expectOutcome = (response: Awaited<ReturnType<typeof send>>, [status, code]: Outcome) => {
    if (code) expectError(response, status, code)
    else {
      expect(response.status, JSON.stringify(response.body)).toBe(status)
      expect(response.body.success).toBe(true)
    }
  }

  describe.each(rows.map((row) => [row.endpoint, row] as const))("%s", (_, row) => {
    it.each(probed(row).map((role) => [role, show(row.expected[role]), role] as const))(
      "as %s → %s",
      async (_, __, role) => {
        const call = await row.call(actors)
        let caller = await actors.as(role)
        if (row.consumesProfileless && (role === "owner" || role === "otherBuyer"))
          caller = await m.buyer("Fresh Buyer")
        if (row.consumesProfileless && role === "admin") {
          caller = await m.signInPhone(spareAdminPhone)
          expect(caller.user.is_admin).toBe(true)
        }
        const outcome = row.expected[role]
        const refused = outcome[0] >= 400
        if (refused && call.state) {
          const before = await call.state()
          expectOutcome(await send(call, caller), outcome)
          expect(await call.state(), "a refused call changed something").toEqual(before)
        } else expectOutcome(await send(call, caller), outcome)
      }
    )
  })

  describe("unknown ids", () => {
    it.each(unknownIds.map((row) => [row.endpoint, row.role, row] as const))(
      "%s as %s → 404 NOT_FOUND",
      async (_, role, row) => {
        const call = await row.call(actors)
        expectOutcome(await send(call, await actors.as(role)), notFound)
      }
    )
  })

  describe("what each caller sees", () => {
    it("GET /requests/{id}/offers: the owner sees every offer but withdrawn ones; a seller sees only their own, withdrawn included", async () => {
      const owner = await actors.owner()
      const sellerA = await actors.approvedSeller()
      const sellerB = await m.approvedSeller("Seller B")
      const request = await m.createRequest(owner)
      const withdrawn = await m.offer(sellerA, request.id, { price: 3900 })
      await m.withdraw(sellerA, withdrawn.id)
      const again = await m.offer(sellerA, request.id, { price: 3800 })
      const fromB = await m.offer(sellerB, request.id, { price: 4100 })

      const ids = (offers: ReadonlyArray<{ readonly id: string }>) => offers.map((o) => o.id)
      expect(ids(await m.offersOf(owner, request.id))).toEqual([fromB.id, again.id])
      expect(ids(await m.offersOf(sellerA, request.id))).toEqual([again.id, withdrawn.id])
      expect((await m.offersOf(sellerA, request.id)).map((o) => o.status)).toEqual(["pending", "withdrawn"])
      expect(ids(await m.offersOf(sellerB, request.id))).toEqual([fromB.id])
    })

    it("a seller whose only offer was withdrawn still sees it; a seller without offers gets 403", async () => {
      const owner = await actors.owner()
      const seller = await m.approvedSeller("Withdrawing Seller")
      const request = await m.createRequest(owner)
      const offer = await m.offer(seller, request.id)
      await m.withdraw(seller, offer.id)
      expect((await m.offersOf(seller, request.id)).map((o) => [o.id, o.status])).toEqual([[offer.id, "withdrawn"]])
      expect(await m.offersOf(owner, request.id)).toEqual([])
      const stranger = await m.approvedSeller("Stranger Seller")
      expectError(await m.api.get(`/requests/${request.id}/offers`, { token: stranger.token }), 403, "FORBIDDEN")
    })

    it("GET /requests/my, /offers/my, /deals/my and /conversations/my list only the caller's own", async () => {
      const buyer = await m.buyer("List Buyer")
      const seller = await m.approvedSeller("List Seller")
      const outsider = await m.approvedSeller("Outsider")
      const { request, offer, deal } = await m.deal(buyer, seller)
      const outsiderRequest = await m.createRequest(outsider)

      const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)
      const mine = {
        requests: async (token: string) =>
          ids(expectStatus(await m.api.get("/requests/my", { token }), 200, "GET /requests/my").data.requests),
        offers: async (token: string) =>
          ids(expectStatus(await m.api.get("/offers/my", { token }), 200, "GET /offers/my").data.offers),
        deals: async (token: string) =>
          ids(expectStatus(await m.api.get("/deals/my", { token }), 200, "GET /deals/my").data.deals),
        conversations: async (token: string) =>
          ids(
            expectStatus(await m.api.get("/conversations/my", { token }), 200, "GET /conversations/my").data
              .conversations
          )
      }
      expect(await mine.requests(buyer.token)).toEqual([request.id])
      expect(await mine.requests(outsider.token)).toEqual([outsiderRequest.id])
      expect(await mine.offers(seller.token)).toEqual([offer.id])
      expect(await mine.offers(outsider.token)).toEqual([])
      expect(await mine.deals(buyer.token)).toEqual([deal.id])
      expect(await mine.deals(seller.token)).toEqual([deal.id])
      expect(await mine.deals(outsider.token)).toEqual([])
      expect((await mine.conversations(outsider.token)).length).toBe(0)
      expect((await mine.conversations(seller.token)).length).toBe(1)
    })

    it("GET /deals/my?role= separates the deals where the caller buys from those where they sell", async () => {
      const sellerWhoBuys = await m.approvedSeller("Seller Who Buys")
      const otherSeller = await m.approvedSeller("Other Seller")
      const buyer = await m.buyer("Plain Buyer")
      const asSeller = await m.deal(buyer, sellerWhoBuys)
      const asBuyer = await m.deal(sellerWhoBuys, otherSeller)

      const deals = async (query: Query) => {
        const response = await m.api.get(`/deals/my${query}`, { token: sellerWhoBuys.token })
        expect(response.status, JSON.stringify(response.body)).toBe(200)
        return response.body.data.deals.map((d) => d.id)
      }
      expect(await deals("?role=buyer")).toEqual([asBuyer.deal.id])
      expect(await deals("?role=seller")).toEqual([asSeller.deal.id])
      expect(await deals("")).toEqual([asBuyer.deal.id, asSeller.deal.id])
    })

    it("POST /offers: a rejected applicant is not an approved seller either (403 SELLER_NOT_APPROVED)", async () => {
      const applicant = await m.pendingSeller("Rejected Applicant")
      const admin = await actors.admin()
      const rejected = await m.api.put(`/admin/seller-profiles/${applicant.profileId}/reject`, { token: admin.token })
      expect(rejected.status, JSON.stringify(rejected.body)).toBe(200)
      expect(rejected.body.data).toMatchObject({ id: applicant.profileId, status: "rejected" })
      const request = await m.createRequest(await actors.owner())
      expectError(
        await m.api.post("/offers", { token: applicant.token, body: offerBody(request.id) }),
        403,
        "SELLER_NOT_APPROVED"
      )
      expect((await m.requestDetail(await actors.owner(), request.id)).offer_count).toBe(0)
    })

    it("the public seller profile needs no token and exposes only the public fields", async () => {
      const seller = await actors.approvedSeller()
      const response = await m.api.get(`/seller-profiles/${seller.profileId}`)
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect(Object.keys(response.body.data).sort()).toEqual(
        ["bio", "business_name", "created_at", "id", "location_district", "rating_avg", "rating_count", "trust"].sort()
      )
    })

    it("an invalid or expired-looking bearer token is 401 on every kind of endpoint, the public one aside", async () => {
      const forged = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
      for (const [method, path] of [
        ["GET", "/requests"],
        ["POST", "/offers"],
        ["GET", "/deals/my"],
        ["GET", "/admin/reports"],
        ["POST", "/seller-profiles"]
      ] as const) {
        expectError(await m.api.raw.call(method, path, { token: forged }), 401, "UNAUTHORIZED")
      }
    })
  })
})
