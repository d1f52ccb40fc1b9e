import type { CallMethod, RawApiClient, RequestInitOf, ResponseData } from "../api/paths.js"
import { Session, type SessionEvents } from "../auth/Session.js"
import { memoryTokenStore, type SessionTokens, type TokenStore } from "../auth/TokenStore.js"
import { Emitter } from "../util/Emitter.js"
import { webSocketUrlOf } from "../util/urls.js"
import { type PageData, type PageItem, type PaginatedPath, walkItems, walkPages } from "./pagination.js"
import { type RetryOptions, requestPolicy } from "./retry.js"
import { type FetchFunction, type LooseInit, Transport } from "./Transport.js"

/** How to reach the Talab API and keep the session. */
export interface TalabClientOptions {
  /**
   * Origin of the Talab server, e.g. `"https://api.talab.sa"` (with a path if it is served under one).
   * REST calls go to `${baseUrl}/api/v1`, the WebSocket to `${baseUrl}/ws` (`wss:` for `https:`).
   */
  readonly baseUrl: string
  /** `Accept-Language` of every call (`"ar"` or `"en"`); the server falls back to the user's language. */
  readonly language?: string
  /** Where the tokens live; memory by default. Give secure storage in an app. */
  readonly tokenStore?: TokenStore
  /** Called when the session ends: sign-out, or a refresh token the server refused. */
  readonly onSignedOut?: (event: SessionEvents["signedOut"]) => void
  /** Headers added to every REST call. */
  readonly headers?: Readonly<Record<string, string>>
  /** The fetch to use; the platform's global `fetch` by default. */
  readonly fetch?: FetchFunction
  /** The WebSocket address when it is not `${baseUrl}/ws`. */
  readonly webSocketUrl?: string
  /** How long one attempt of a REST call may take before it fails with `TalabTimeoutError`, in ms (default 15 000). */
  readonly timeoutMs?: number
  /**
   * Retries of REST calls after a network failure, a timeout, 429 (after its `Retry-After`) or 502/503/504, with
   * exponential backoff and jitter: at most 3 by default; `false` turns them off. Only GETs and calls carrying an
   * `Idempotency-Key` header (every POST by default) are retried; see `idempotencyKeys`.
   */
  readonly retry?: RetryOptions | false
  /**
   * Send every POST with a fresh `Idempotency-Key` header (default true), kept across the client's own retries:
   * the server answers a retry with the first call's answer instead of acting twice, so POSTs are retried too.
   * A call can pass its own key in `headers` (to retry across an app restart); `false` sends none.
   */
  readonly idempotencyKeys?: boolean
}

/** Events of a client: `signedIn`, `signedOut`, `tokensRefreshed`. */
export type TalabClientEvents = { [K in keyof SessionEvents]: SessionEvents[K] }

/** The signed-in user and tokens POST /auth/verify-otp answers. */
export type SignInResult = ResponseData<"/auth/verify-otp", "post">

/** One of the signed-in user's sessions, as GET /auth/sessions lists them. */
export type SessionInfo = ResponseData<"/auth/sessions", "get">["sessions"][number]

/** The device a sign-in names, shown in the user's list of sessions (`platform`: ios, android or web). */
export type SessionDevice = NonNullable<SessionInfo["device"]>

/** A file to upload: a `Blob`/`File` (browsers, Node), or React Native's `{ uri, name, type }`. */
export type UploadFile = Blob | { readonly uri: string; readonly name: string; readonly type: string }

/**
 * The typed Talab REST client (`TalabClient` adds the realtime client). Every endpoint of the server's OpenAPI
 * document is callable through
 * `GET`/`POST`/`PUT`/`PATCH`/`DELETE` with its path as the spec writes it; calls resolve with the success
 * envelope and throw a `TalabApiError` (typed `code`, localized `message`, `details`, `status`).
 *
 * @example
 * const talab = createTalabRestClient({ baseUrl: "https://api.talab.sa", language: "en" })
 * await talab.auth.requestOtp("+966501234567")
 * await talab.auth.signIn({ phoneNumber: "+966501234567", otpCode: "123456" })
 * const { data } = await talab.GET("/requests/{id}", { params: { path: { id } } })
 */
export class TalabRestClient {
  private readonly events = new Emitter<TalabClientEvents>()
  protected readonly session: Session
  private readonly transport: Transport
  private currentLanguage: string | undefined

  /** GET an endpoint: `talab.GET("/requests", { params: { query: { status: "active" } } })`. */
  readonly GET: CallMethod<"get">
  /** POST to an endpoint: `talab.POST("/requests", { body: { … } })`. */
  readonly POST: CallMethod<"post">
  /** PUT to an endpoint: `talab.PUT("/deals/{id}/complete", { params: { path: { id } } })`. */
  readonly PUT: CallMethod<"put">
  /** PATCH an endpoint: `talab.PATCH("/offers/{id}", { params: { path: { id } }, body: { price: 2900 } })`. */
  readonly PATCH: CallMethod<"patch">
  /** DELETE an endpoint: `talab.DELETE("/offers/{id}", { params: { path: { id } } })`. */
  readonly DELETE: CallMethod<"delete">

  /** The WebSocket address of the server. */
  readonly webSocketUrl: string

  constructor(options: TalabClientOptions) {
    this.currentLanguage = options.language
    this.webSocketUrl = options.webSocketUrl ?? webSocketUrlOf(options.baseUrl)
    this.session = new Session(
      options.tokenStore ?? memoryTokenStore(),
      async (refreshToken) => {
        const { data } = await this.POST("/auth/refresh", { body: { refresh_token: refreshToken } })
        return { accessToken: data.access_token }
      },
      this.events
    )
    this.transport = new Transport(
      {
        baseUrl: options.baseUrl,
        fetch: options.fetch,
        headers: options.headers ?? {},
        language: () => this.currentLanguage,
        policy: requestPolicy(options.timeoutMs, options.retry),
        idempotencyKeys: options.idempotencyKeys ?? true
      },
      this.session
    )
    if (options.onSignedOut) this.events.on("signedOut", options.onSignedOut)
    const call = this.transport.call.bind(this.transport)
    this.GET = ((path: string, init?: LooseInit) => call("get", path, init)) as CallMethod<"get">
    this.POST = ((path: string, init?: LooseInit) => call("post", path, init)) as CallMethod<"post">
    this.PUT = ((path: string, init?: LooseInit) => call("put", path, init)) as CallMethod<"put">
    this.PATCH = ((path: string, init?: LooseInit) => call("patch", path, init)) as CallMethod<"patch">
    this.DELETE = ((path: string, init?: LooseInit) => call("delete", path, init)) as CallMethod<"delete">
  }

  /**
   * The openapi-fetch client underneath (base URL `…/api/v1`), for what the typed calls do not cover.
   * It adds neither the token nor the language and never refreshes.
   */
  get raw(): RawApiClient {
    return this.transport.raw
  }

  /** The `Accept-Language` sent with every call. */
  get language(): string | undefined {
    return this.currentLanguage
  }

  /** Changes the `Accept-Language` of the calls that follow (`"ar"` or `"en"`). */
  setLanguage(language: string | undefined): void {
    this.currentLanguage = language
  }

  /** Listens to `signedIn`, `signedOut` or `tokensRefreshed`; returns a function that stops listening. */
  on<E extends keyof TalabClientEvents>(event: E, listener: (payload: TalabClientEvents[E]) => void): () => void {
    return this.events.on(event, listener)
  }

  /** Phone sign-in and the session. */
  readonly auth = {
    /** Sends a one-time code by SMS to a phone number (POST /auth/request-otp). */
    requestOtp: async (phoneNumber: string): Promise<ResponseData<"/auth/request-otp", "post">> =>
      (await this.POST("/auth/request-otp", { body: { phone_number: phoneNumber } })).data,

    /**
     * Verifies the code (POST /auth/verify-otp), stores the tokens and answers the user and tokens. `device`
     * names the session in the user's list of sessions (`{ platform: "ios", name: "Sara's iPhone" }`).
     */
    signIn: async (credentials: {
      readonly phoneNumber: string
      readonly otpCode: string
      readonly device?: SessionDevice
    }): Promise<SignInResult> => {
      const { data } = await this.POST("/auth/verify-otp", {
        body: {
          phone_number: credentials.phoneNumber,
          otp_code: credentials.otpCode,
          ...(credentials.device === undefined ? {} : { device: credentials.device })
        }
      })
      await this.session.signIn({ accessToken: data.tokens.access_token, refreshToken: data.tokens.refresh_token })
      return data
    },

    /**
     * Ends the session on the server (POST /auth/logout, removing `deviceToken` from push delivery),
     * then clears the token store and emits `signedOut`. The local session ends even when the server
     * cannot be reached; that error is thrown after.
     */
    signOut: async (options: { readonly deviceToken?: string } = {}): Promise<void> => {
      try {
        if ((await this.session.tokens()) !== null) {
          const body = options.deviceToken === undefined ? {} : { device_token: options.deviceToken }
          await this.POST("/auth/logout", { body })
        }
      } finally {
        await this.session.signOut("signed_out")
      }
    },

    /** The user's live sessions, newest first; `current` marks this client's own (GET /auth/sessions). */
    sessions: async (): Promise<ReadonlyArray<SessionInfo>> => (await this.GET("/auth/sessions")).data.sessions,

    /**
     * Ends one of the user's sessions (DELETE /auth/sessions/{id}): its tokens stop working, its sockets close
     * and its push tokens are removed. For this client's own session use `signOut`, which also clears the store.
     */
    endSession: async (id: string): Promise<void> => {
      await this.DELETE("/auth/sessions/{id}", { params: { path: { id } } })
    },

    /** Ends every session of the user but this client's own (DELETE /auth/sessions); answers how many. */
    endOtherSessions: async (): Promise<number> => (await this.DELETE("/auth/sessions")).data.ended,

    /** Whether the token store holds a session (it may still be refused by the server). */
    isSignedIn: async (): Promise<boolean> => (await this.session.tokens()) !== null,

    /** The stored tokens, or null. */
    tokens: (): Promise<SessionTokens | null> => this.session.tokens(),

    /**
     * Replaces the access token now. Calls refresh on their own when the server answers 401; use this
     * only to refresh ahead of time. Answers false when the refresh token was refused (signed out).
     */
    refresh: async (): Promise<boolean> => {
      const token = await this.session.accessToken()
      return token !== undefined && (await this.session.renew(token)) !== undefined
    }
  }

  /**
   * Every page of a paginated list endpoint, one `data` (`{ requests, pagination }`, …) at a time, from
   * `query.page` (default 1) to the last page.
   *
   * @example
   * for await (const page of talab.pages("/requests", { params: { query: { per_page: 50 } } })) render(page.requests)
   */
  pages<P extends PaginatedPath>(
    path: P,
    init?: RequestInitOf<P, "get">
  ): AsyncGenerator<PageData<P>, void, undefined> {
    return walkPages(this.GET as never, path, init)
  }

  /**
   * Every item of a paginated list endpoint across all its pages, fetched page by page as you iterate.
   *
   * @example
   * for await (const deal of talab.items("/deals/my", { params: { query: { role: "buyer" } } })) console.log(deal.id)
   */
  items<P extends PaginatedPath>(
    path: P,
    init?: RequestInitOf<P, "get">
  ): AsyncGenerator<PageItem<P>, void, undefined> {
    return walkItems(this.pages(path, init) as AsyncIterable<Record<string, unknown>>)
  }

  /**
   * Everything the service holds about the signed-in user (GET /users/me/export): profile, sessions, requests,
   * offers, deals, conversations and their own messages, ratings, reports made, alert rules. A few per hour.
   */
  async exportMyData(): Promise<ResponseData<"/users/me/export", "get">> {
    return (await this.GET("/users/me/export")).data
  }

  /**
   * Deletes the signed-in user's account (DELETE /users/me) with a code just sent to their number
   * (`auth.requestOtp`), then clears the token store as sign-out does. Refused (422 `OPEN_DEALS_EXIST`) while one of
   * their deals is accepted but neither completed nor cancelled. Answers when the account was deleted.
   */
  async deleteAccount(otpCode: string): Promise<ResponseData<"/users/me", "delete">> {
    const { data } = await this.DELETE("/users/me", { body: { otp_code: otpCode } })
    await this.session.signOut("signed_out")
    return data
  }

  /** Uploads the signed-in user's avatar (POST /users/me/avatar); JPEG, PNG or WebP up to 5 MiB. */
  async uploadAvatar(file: UploadFile, fileName = "avatar"): Promise<ResponseData<"/users/me/avatar", "post">> {
    const { data } = await this.POST("/users/me/avatar", {
      body: formOf("avatar", file, fileName) as never,
      bodySerializer: (body: unknown) => body
    })
    return data
  }

  /**
   * Uploads a photo (POST /images): a browser's `File` or `Blob`, a React Native `{uri, name, type}`, or bytes
   * (Node's `Buffer`, a `Uint8Array`); JPEG, PNG or WebP up to 10 MiB. Answers its `id`, to pass in `photo_ids`
   * (`POST /requests`, `POST /offers`) or `attachment_ids` (a message), and its signed `url` and `thumbnail_url`.
   *
   * @example
   * const photo = await talab.uploadImage(readFileSync("back.jpg"), "back.jpg")
   * await talab.POST("/offers", { body: { request_id, price: 1500, availability: "today", photo_ids: [photo.id] } })
   */
  async uploadImage(file: UploadFile | Uint8Array, fileName = "photo"): Promise<ResponseData<"/images", "post">> {
    const { data } = await this.POST("/images", {
      body: formOf("image", file, fileName) as never,
      bodySerializer: (body: unknown) => body
    })
    return data
  }
}

/** A form with one file part: a Blob (a browser's File) under its name, bytes as a Blob, a React Native file as is. */
const formOf = (field: string, file: UploadFile | Uint8Array, fileName: string) => {
  const form = new FormData()
  if (file instanceof Uint8Array) form.append(field, new Blob([file as Uint8Array<ArrayBuffer>]), fileName)
  else if (typeof Blob !== "undefined" && file instanceof Blob) form.append(field, file, fileName)
  else form.append(field, file as unknown as Blob)
  return form
}

/** Creates a {@link TalabRestClient}: REST only, without the realtime client's code. */
export const createTalabRestClient = (options: TalabClientOptions): TalabRestClient => new TalabRestClient(options)
