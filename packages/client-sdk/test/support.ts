import { newPhoneNumber, startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
import { afterAll, beforeAll } from "vitest"
import { createMigratedPostgresDatabase, withMigratedDump } from "../../http-server/test/support/migrated-databases.js"
import { createTalabClient, type TalabClient, type TalabClientOptions } from "../src/index.js"

/** The admin of every test server here. */
const ADMIN_PHONE = "+966500000001"

/** Limits high enough that suites signing many users in are not throttled. */
export const relaxedSettings: NonNullable<TestServerOptions["settings"]> = {
  adminPhoneNumbers: [ADMIN_PHONE],
  rateLimits: {
    authPerMinute: 10_000,
    otpPer10Minutes: 10,
    apiPerMinute: 10_000,
    wsMessagesPerMinute: 1_000,
    wsHandshakesPerMinute: 10_000
  }
}

/**
 * Starts a test server for the suite it is called in and stops it after; access it through the getter. It runs on
 * a PostgreSQL database of its own, a copy of the run's migrated template (the SDK does not see the database, and
 * a copy costs far less CPU than loading PGlite), or on PGlite from the run's dump when `pglite` is set.
 */
export const useTestServer = (
  options: TestServerOptions = { settings: relaxedSettings },
  database: "postgres" | "pglite" = "postgres"
) => {
  let server: TestServer | undefined
  let dropDatabase: (() => Promise<void>) | undefined
  // No limit of its own: the configuration's applies (the packaging checks, which CI runs at a low priority beside
  // everything else, allow minutes).
  beforeAll(async () => {
    if (database === "pglite") {
      server = await startTestServer(await withMigratedDump(options))
      return
    }
    const created = await createMigratedPostgresDatabase("talab_sdk_")
    dropDatabase = created.drop
    server = await startTestServer({ ...options, databaseUrl: created.url })
  })
  afterAll(async () => {
    await server?.close()
    await dropDatabase?.()
  })
  return () => {
    if (!server) throw new Error("server not started")
    return server
  }
}

/** A fresh valid mobile number per call. */
export const newPhone = newPhoneNumber

/** A client of the test server, signed in through request-otp and verify-otp with the code the server sent. */
export const signedInClient = async (
  server: TestServer,
  options: Partial<TalabClientOptions> & { readonly phone?: string } = {}
): Promise<{ readonly talab: TalabClient; readonly phone: string; readonly userId: string }> => {
  const phone = options.phone ?? newPhone()
  const talab = createTalabClient({ baseUrl: server.baseUrl, language: "en", ...options })
  await talab.auth.requestOtp(phone)
  const code = server.sms.lastCode(phone)
  if (code === undefined) throw new Error(`no code was sent to ${phone}`)
  const { user } = await talab.auth.signIn({ phoneNumber: phone, otpCode: code })
  return { talab, phone, userId: user.id }
}

/** An approved seller: applies for a profile that the admin approves. */
export const approvedSeller = async (server: TestServer) => {
  const seller = await signedInClient(server)
  const admin = await signedInClient(server, { phone: ADMIN_PHONE })
  const { data: profile } = await seller.talab.POST("/seller-profiles", {
    body: { business_name: "Jeddah Phones", location_district: "Al Rawdah", location_city: "Jeddah" }
  })
  await admin.talab.PUT("/admin/seller-profiles/{id}/approve", { params: { path: { id: profile.id } } })
  return seller
}

/** A buy request of the buyer. */
export const postRequest = async (talab: TalabClient, overrides: { readonly budget_max?: number } = {}) =>
  (
    await talab.POST("/requests", {
      body: {
        category: "phone",
        product_brand: "Apple",
        product_model: "iPhone 15",
        budget_min: 2000,
        budget_max: overrides.budget_max ?? 3500,
        location_district: "Al Rawdah",
        location_city: "Jeddah"
      }
    })
  ).data

/** A fetch that counts the calls to each path (after /api/v1) and passes them on. */
export const countingFetch = () => {
  const calls: Array<{ readonly method: string; readonly path: string; readonly status: number }> = []
  const fetch = async (request: Request) => {
    const response = await globalThis.fetch(request)
    calls.push({
      method: request.method,
      path: new URL(request.url).pathname.replace(/^\/api\/v1/, ""),
      status: response.status
    })
    return response
  }
  return { fetch, calls, count: (path: string) => calls.filter((c) => c.path === path).length }
}

/** Resolves when `predicate` holds, polling every 10 ms, or fails after `timeoutMs`. */
export const eventually = async (predicate: () => boolean, timeoutMs = 10_000, what = "condition") => {
  const start = Date.now()
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** 24 hours and a minute: past the access token's lifetime. */
export const PAST_ACCESS_TOKEN_LIFETIME = "1441 minutes"

/** A valid 1×1 PNG. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0)
)
