import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCli } from "@talab/http-server"
import type { TestServer } from "@talab/testkit"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_PHONE, expectError, market, unknownId, useMarketServer } from "../support/fixtures.js"
import { backends, client, newPhone, relaxedLimits, type SignedIn, signIn, startServer } from "../support/harness.js"
import { createPostgresDatabase, runSql } from "../support/postgres.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/*
 * /admin/*: a non-admin gets 403 FORBIDDEN before anything is looked up or decoded, whatever
 * the id or the body, so ids cannot be probed there (decisions.md section 11: only 401 and 429 come first).
 * Admin is ADMIN_PHONE_NUMBERS (read per request) or an operator's grant in users.is_admin.
 */

/** How an id is spelled in a path: one nobody has, one that exists, and ones that are not ids. */
type IdKind = "unknown" | "known" | "malformed" | "uppercase"

/** Bodies a call may carry: none, a valid one, and ones the body check or the payload schema would refuse. */
const bodies: ReadonlyArray<[string, { rawBody?: string; body?: unknown } | undefined]> = [
  ["no body", undefined],
  ["a valid body", { body: { action: "dismiss", notes: "ok" } }],
  ["malformed JSON", { rawBody: '{"action":' }],
  ["a JSON array", { rawBody: "[1,2,3]" }],
  ["a wrong action", { body: { action: "delete_everything" } }],
  ["a refused character", { body: { action: "dismiss", notes: "a\u202Eb" } }],
  ["a valid reason", { body: { reason: "Because" } }],
  ["a reason too long", { body: { reason: "x".repeat(501) } }]
]

describe.each(backends)("admin routes on %s", (backend) => {
  const server = useMarketServer(backend)
  const m = market(server)
  const api = () => m.api()

  let buyer: SignedIn
  let seller: SignedIn
  let admin: SignedIn
  let pendingProfileId: string
  let approvedProfileId: string
  let reportId: string

  beforeAll(async () => {
    buyer = await m.user("Buyer")
    const approved = await m.seller("Seller")
    seller = approved
    approvedProfileId = approved.profileId
    admin = await m.admin()
    pendingProfileId = (await m.applicant("Applicant")).profileId
    const filed = await api().post("/reports", {
      token: buyer.token,
      body: { reported_user_id: seller.userId, reason: "scam" }
    })
    reportId = m.expectStatus(filed, 201, "report").body.data.id
  }, 60_000)

  const idOf = (kind: IdKind, known: string) =>
    ({ unknown: unknownId(), known, malformed: "not-an-id", uppercase: known.toUpperCase() })[kind]

  const idRoutes = () => [
    {
      name: "PUT /admin/seller-profiles/{id}/approve",
      path: (id: string) => `/admin/seller-profiles/${id}/approve`,
      known: pendingProfileId
    },
    {
      name: "PUT /admin/seller-profiles/{id}/reject",
      path: (id: string) => `/admin/seller-profiles/${id}/reject`,
      known: pendingProfileId
    },
    {
      name: "PUT /admin/seller-profiles/{id}/suspend",
      path: (id: string) => `/admin/seller-profiles/${id}/suspend`,
      known: approvedProfileId
    },
    {
      name: "PUT /admin/seller-profiles/{id}/reinstate",
      path: (id: string) => `/admin/seller-profiles/${id}/reinstate`,
      known: approvedProfileId
    },
    { name: "PUT /admin/reports/{id}/resolve", path: (id: string) => `/admin/reports/${id}/resolve`, known: reportId }
  ]

  /** The GET routes that name an id: reading one may not tell a non-admin whether it exists. */
  const idReads = () => [
    { name: "GET /admin/reports/{id}", path: (id: string) => `/admin/reports/${id}`, known: reportId },
    { name: "GET /admin/users/{id}", path: (id: string) => `/admin/users/${id}`, known: seller.userId }
  ]

  const listRoutes = [
    "/admin/seller-profiles/pending",
    "/admin/seller-profiles/pending?page=0",
    "/admin/seller-profiles/pending?per_page=abc",
    "/admin/reports",
    "/admin/reports?status=bogus",
    "/admin/reports?page=-1&per_page=1000",
    "/admin/audit-log",
    "/admin/audit-log?action=report.view&per_page=5",
    "/admin/audit-log?action=bogus&from=yesterday&actor_id=not-an-id",
    `/admin/users?phone=${encodeURIComponent(ADMIN_PHONE)}`,
    "/admin/users?phone=0501234567",
    "/admin/users"
  ] as const

  /** What a refused call could have changed: the pending profile and the report, as the admin sees them. */
  const adminView = async () => ({
    pending: (await api().get("/admin/seller-profiles/pending?per_page=50", { token: admin.token })).body,
    reports: (await api().get("/admin/reports?per_page=50", { token: admin.token })).body,
    seller: (await api().get(`/seller-profiles/${pendingProfileId}`)).body,
    approved: (await api().get(`/seller-profiles/${approvedProfileId}`)).body,
    // A refused call is no admin action: the log does not move (not even a report.view).
    audit: (await api().get("/admin/audit-log?per_page=50", { token: admin.token })).body
  })

  it("answers 403 FORBIDDEN to a buyer and to an approved seller on every admin route, whatever the id or the body, changing nothing", async () => {
    const before = await adminView()
    let calls = 0
    for (const caller of [buyer, seller]) {
      for (const path of listRoutes) {
        const response = await api().get(path, { token: caller.token })
        expectError(response, 403, "FORBIDDEN")
        calls++
      }
      for (const route of idRoutes()) {
        for (const kind of ["unknown", "known", "malformed", "uppercase"] as const) {
          for (const [what, body] of bodies) {
            const response = await api().raw.put(route.path(idOf(kind, route.known)), {
              token: caller.token,
              ...(body?.rawBody !== undefined
                ? { rawBody: body.rawBody, headers: { "content-type": "application/json" } }
                : body?.body !== undefined
                  ? { body: body.body }
                  : {})
            })
            expect(
              response.status,
              `${route.name} with a ${kind} id and ${what}: ${JSON.stringify(response.body)}`
            ).toBe(403)
            expectError(response, 403, "FORBIDDEN")
            calls++
          }
        }
      }
    }
    for (const caller of [buyer, seller]) {
      for (const route of idReads()) {
        for (const kind of ["unknown", "known", "malformed", "uppercase"] as const) {
          const response = await api().raw.get(route.path(idOf(kind, route.known)), { token: caller.token })
          expect(response.status, `${route.name} with a ${kind} id: ${JSON.stringify(response.body)}`).toBe(403)
          expectError(response, 403, "FORBIDDEN")
          calls++
        }
      }
    }
    expect(calls).toBe(2 * (listRoutes.length + idRoutes().length * 4 * bodies.length + idReads().length * 4))
    expect(await adminView()).toEqual(before)
  })

  it("says FORBIDDEN in the caller's language, the same for an unknown and a known id", async () => {
    const messageOf = async (id: string, language: string) => {
      const response = await api().put(`/admin/reports/${id}/resolve`, {
        token: buyer.token,
        body: { action: "dismiss" },
        headers: { "accept-language": language }
      })
      return expectError(response, 403, "FORBIDDEN").message
    }
    expect(await messageOf(unknownId(), "en")).toBe(await messageOf(reportId, "en"))
    expect(await messageOf(unknownId(), "ar")).toMatch(/[\u0600-\u06FF]/)
  })

  it("answers 401 before 403: no token, whatever the id", async () => {
    for (const id of [unknownId(), reportId, "not-an-id"]) {
      expectError(await api().put(`/admin/reports/${id}/resolve`, { body: { action: "dismiss" } }), 401, "UNAUTHORIZED")
    }
    expectError(await api().get("/admin/reports", { token: "not-a-token" }), 401, "UNAUTHORIZED")
    for (const path of [...listRoutes, ...idReads().map((route) => route.path(route.known))]) {
      expectError(await api().raw.get(path), 401, "UNAUTHORIZED")
    }
    for (const route of idRoutes()) {
      expectError(await api().raw.put(route.path(route.known), { body: { reason: "x" } }), 401, "UNAUTHORIZED")
    }
  })

  it("lets the admin past the check: 404 for an unknown or malformed id, 400 for a bad body", async () => {
    expectError(
      await api().put(`/admin/seller-profiles/${unknownId()}/approve`, { token: admin.token }),
      404,
      "NOT_FOUND"
    )
    expectError(
      await api().put(`/admin/reports/${unknownId()}/resolve`, { token: admin.token, body: { action: "dismiss" } }),
      404,
      "NOT_FOUND"
    )
    expectError(
      await api().put("/admin/reports/not-an-id/resolve", { token: admin.token, body: { action: "dismiss" } }),
      404,
      "NOT_FOUND"
    )
    expectError(
      await api().raw.put(`/admin/reports/${reportId}/resolve`, { token: admin.token, body: { action: "nope" } }),
      400,
      "VALIDATION_ERROR"
    )
    expectError(await api().get("/admin/reports?status=bogus", { token: admin.token }), 400, "VALIDATION_ERROR")
  })
})

// The order of checks does not depend on the database: one run on the embedded one.
describe("admin routes and the rate limit", () => {
  it("counts a non-admin's admin calls against their API budget: 429 comes before 403", async () => {
    const limited = await startServer({
      settings: {
        ...relaxedLimits,
        rateLimits: { ...relaxedLimits.rateLimits, apiPerMinute: 2 },
        adminPhoneNumbers: [ADMIN_PHONE]
      }
    })
    try {
      const caller = await signIn(limited, client(limited))
      const call = () =>
        client(limited).raw.put(`/admin/reports/${unknownId()}/resolve`, { token: caller.token, body: {} })
      expectError(await call(), 403, "FORBIDDEN")
      expectError(await call(), 403, "FORBIDDEN")
      expectError(await call(), 429, "RATE_LIMITED")
    } finally {
      await limited.close()
    }
    // It starts a server of its own, on the embedded database: seconds of CPU on a loaded machine.
  }, 90_000)
})

describe.each(backends)("who is an admin on %s", (backend) => {
  let database: { url: string; drop: () => Promise<void> } | undefined
  const dataDir = mkdtempSync(join(tmpdir(), "talab-admins-"))
  const listed = newPhone()
  const granted = newPhone()

  beforeAll(async () => {
    if (backend === "postgres") database = await createPostgresDatabase()
  }, 60_000)
  afterAll(async () => {
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  /** A server on this suite's database (kept across servers), with the given admin list. */
  const serverWith = (adminPhoneNumbers: ReadonlyArray<string>) =>
    startServer({
      settings: { ...relaxedLimits, adminPhoneNumbers },
      ...(database ? { databaseUrl: database.url } : { dataDir })
    })

  const storedIsAdmin = async (phone: string) =>
    (
      await runSql(
        database!.url,
        (sql) => sql<{ is_admin: boolean }>`SELECT is_admin FROM users WHERE phone_number = ${phone}`
      )
    )[0]?.is_admin

  const isAdmin = async (server: TestServer, token: string) => {
    const me = await client(server).get("/users/me", { token })
    expect(me.status).toBe(200)
    const admin = await client(server).get("/admin/reports", { token })
    expect([200, 403]).toContain(admin.status)
    // The flag the API shows and the access it gives always agree.
    expect(me.body.data.is_admin).toBe(admin.status === 200)
    return me.body.data.is_admin as boolean
  }

  it("takes list entries written with spaces and dashes, and drops a number removed from the list at its next request, without a new sign-in", async () => {
    // +966 50 123 4567 spelled the way an operator might paste it.
    const spaced = `${listed.slice(0, 4)} ${listed.slice(4, 6)}-${listed.slice(6, 9)} ${listed.slice(9)}`
    const first = await serverWith([spaced])
    let token: string
    try {
      const signed = await signIn(first, client(first), listed)
      expect(signed.user.is_admin).toBe(true)
      token = signed.token
      expect(await isAdmin(first, token)).toBe(true)
    } finally {
      await first.close()
    }
    // The same database, the number removed from the list: the same token is no longer an admin's.
    const second = await serverWith([])
    try {
      expect(await isAdmin(second, token)).toBe(false)
      expectError(await client(second).get("/admin/seller-profiles/pending", { token }), 403, "FORBIDDEN")
      const again = await signIn(second, client(second), listed)
      expect(again.user.is_admin).toBe(false)
    } finally {
      await second.close()
    }
  }, 120_000)

  it.runIf(backend === "postgres")(
    "keeps an operator's grant (users.is_admin) whatever the list says",
    async () => {
      // With the Redis the instances share, as in production: `talab admin` reaches the running server's
      // session cache through it (docs/DECISIONS.md, "Session cache").
      const server = await startServer({
        settings: { ...relaxedLimits, adminPhoneNumbers: [] },
        databaseUrl: database!.url,
        redisUrl: REDIS_URL
      })
      try {
        const signed = await signIn(server, client(server), granted)
        expect(await isAdmin(server, signed.token)).toBe(false)
        const setGrant = async (value: boolean) => {
          const command = ["admin", value ? "grant" : "revoke", granted]
          const outcome = await Effect.runPromise(runCli(command, { DATABASE_URL: database!.url, REDIS_URL }))
          expect(outcome.code).toBe(0)
        }
        await setGrant(true)
        expect(await isAdmin(server, signed.token)).toBe(true)
        // A profile change neither writes the flag back nor clears it.
        expect((await client(server).put("/users/me", { token: signed.token, body: { name: "Op" } })).status).toBe(200)
        expect(await storedIsAdmin(granted)).toBe(true)
        await setGrant(false)
        expect(await isAdmin(server, signed.token)).toBe(false)
      } finally {
        await server.close()
      }
    },
    60_000
  )

  it.runIf(backend === "postgres")(
    "never writes the list into users.is_admin",
    async () => {
      const server = await serverWith([ADMIN_PHONE])
      try {
        const signed = await signIn(server, client(server), ADMIN_PHONE)
        expect(signed.user.is_admin).toBe(true)
        expect((await client(server).put("/users/me", { token: signed.token, body: { name: "Admin" } })).status).toBe(
          200
        )
        expect(await storedIsAdmin(ADMIN_PHONE)).toBe(false)
      } finally {
        await server.close()
      }
    },
    60_000
  )
})
