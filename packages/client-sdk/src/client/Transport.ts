import { TalabApiError } from "../api/errors.js"
import type { ApiMethod, RawApiClient } from "../api/paths.js"
import type { Session } from "../auth/Session.js"
import { restUrlOf } from "../util/urls.js"
import { randomId } from "../util/uuid.js"
import { createOpenApiClient } from "./createOpenApiClient.js"
import { type RequestPolicy, sendWithRetries } from "./retry.js"

/** Paths that never carry the access token: signing in and refreshing. */
const PATHS_WITHOUT_TOKEN: ReadonlySet<string> = new Set(["/auth/request-otp", "/auth/verify-otp", "/auth/refresh"])

/** A fetch function: the platform's, or one the app supplies (tests, logging, certificate pinning). */
export type FetchFunction = (request: Request) => Promise<Response>

/** What the transport needs to know about the app. */
export interface TransportOptions {
  readonly baseUrl: string
  readonly fetch: FetchFunction | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly language: () => string | undefined
  readonly policy: RequestPolicy
  /** Give every POST its own `Idempotency-Key` (kept across the client's retries), so POSTs are retried too (default). */
  readonly idempotencyKeys: boolean
}

/** Options of one call as openapi-fetch takes them (params, body, headers, signal, …). */
export type LooseInit = {
  readonly headers?: HeadersInit | Record<string, string | undefined>
  readonly [key: string]: unknown
}

/**
 * Sends the typed calls through openapi-fetch: adds `Accept-Language`, the access token and (unless turned off) an
 * `Idempotency-Key` on every POST, times out and retries what is safe to retry ({@link sendWithRetries}), turns an error
 * response into a {@link TalabApiError}, and on a 401 for an expired token refreshes the session once and
 * sends the call again.
 */
export class Transport {
  /** The openapi-fetch client the calls go through (base URL `…/api/v1`). */
  readonly raw: RawApiClient

  constructor(
    private readonly options: TransportOptions,
    private readonly session: Session
  ) {
    const appFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request))
    this.raw = createOpenApiClient({
      baseUrl: restUrlOf(options.baseUrl),
      fetch: (request) => sendWithRetries(appFetch, request, options.policy)
    })
  }

  /** Sends `method path`; resolves with the success body, throws a {@link TalabApiError} otherwise. */
  async call(method: ApiMethod, path: string, init: LooseInit = {}): Promise<any> {
    const token = PATHS_WITHOUT_TOKEN.has(path) ? undefined : await this.session.accessToken()
    if (method === "post" && this.options.idempotencyKeys && !("idempotency-key" in lowerCased(init.headers))) {
      init = { ...init, headers: { ...headersOf(init.headers), "idempotency-key": randomId() } }
    }
    const first = await this.send(method, path, init, token)
    if (!this.isExpiredToken(first.response, first.error) || token === undefined) return this.unwrap(first)
    const renewed = await this.session.renew(token)
    if (renewed === undefined) {
      throw TalabApiError.fromResponse(first.response, first.error)
    }
    return this.unwrap(await this.send(method, path, init, renewed))
  }

  private isExpiredToken(response: Response, body: unknown) {
    if (response.status !== 401) return false
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code
    return code === undefined || code === "UNAUTHORIZED"
  }

  private unwrap(outcome: { readonly data?: unknown; readonly error?: unknown; readonly response: Response }) {
    if (!outcome.response.ok) throw TalabApiError.fromResponse(outcome.response, outcome.error)
    return outcome.data
  }

  private send(method: ApiMethod, path: string, init: LooseInit, token: string | undefined) {
    const headers = new Headers(this.options.headers)
    const language = this.options.language()
    if (language !== undefined) headers.set("accept-language", language)
    for (const [name, value] of Object.entries(headersOf(init.headers))) headers.set(name, value)
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`)
    const request = this.raw.request as (method: string, path: string, init: object) => ReturnType<RawApiClient["GET"]>
    return request(method, path, { ...init, headers })
  }
}

const lowerCased = (headers: LooseInit["headers"]) =>
  Object.fromEntries(Object.entries(headersOf(headers)).map(([name, value]) => [name.toLowerCase(), value]))

const headersOf = (headers: LooseInit["headers"]): Record<string, string> => {
  if (headers === undefined) return {}
  const result: Record<string, string> = {}
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      result[name] = value
    })
    return result
  }
  if (Array.isArray(headers)) return Object.fromEntries(headers)
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = String(value)
  return result
}
