/** The tokens of a signed-in session. */
export interface SessionTokens {
  /** JWT sent as `Authorization: Bearer …`; valid 24 hours. */
  readonly accessToken: string
  /** JWT exchanged for a new access token at POST /auth/refresh; valid 30 days. */
  readonly refreshToken: string
}

/**
 * Where the client keeps the session's tokens. Each method may answer directly or with a promise, so
 * secure storage (iOS Keychain, Android Keystore, `expo-secure-store`, an encrypted cookie…) plugs in
 * as is.
 *
 * @example
 * import * as SecureStore from "expo-secure-store"
 * const tokenStore: TokenStore = {
 *   get: async () => JSON.parse((await SecureStore.getItemAsync("talab.session")) ?? "null"),
 *   set: (tokens) => SecureStore.setItemAsync("talab.session", JSON.stringify(tokens)),
 *   clear: () => SecureStore.deleteItemAsync("talab.session")
 * }
 */
export interface TokenStore {
  /** The stored tokens, or null (or undefined) when signed out. */
  get(): SessionTokens | null | undefined | Promise<SessionTokens | null | undefined>
  /** Stores the tokens, replacing any stored before. */
  set(tokens: SessionTokens): void | Promise<void>
  /** Forgets the tokens. */
  clear(): void | Promise<void>
}

/** A token store in memory: the session lasts as long as the process (the default). */
export const memoryTokenStore = (initial?: SessionTokens): TokenStore => {
  let tokens: SessionTokens | null = initial ?? null
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next
    },
    clear: () => {
      tokens = null
    }
  }
}

/**
 * The part of the Web Storage API a {@link webStorageTokenStore} uses: `localStorage` and `sessionStorage` are
 * one, and so is any object with these three methods.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

const isSessionTokens = (value: unknown): value is SessionTokens =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as SessionTokens).accessToken === "string" &&
  typeof (value as SessionTokens).refreshToken === "string"

/**
 * A token store in the browser's Web Storage, so a session survives a reload: `localStorage` keeps it across tabs
 * and restarts until sign-out, `sessionStorage` for the tab's life only. Whatever script runs on the page can read
 * it, so serve the app with a Content-Security-Policy that allows only your own scripts; in an app, prefer the
 * platform's secure storage (see the README). An unreadable entry (edited by hand, from another version) reads
 * as signed out and is removed.
 *
 * @example
 * const talab = createTalabClient({ baseUrl, tokenStore: webStorageTokenStore(localStorage) })
 * if (await talab.auth.isSignedIn()) showHome() // signed in before the reload
 */
export const webStorageTokenStore = (storage: KeyValueStorage, key = "talab.session"): TokenStore => ({
  get: () => {
    const stored = storage.getItem(key)
    if (stored === null) return null
    try {
      const tokens: unknown = JSON.parse(stored)
      if (isSessionTokens(tokens)) return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }
    } catch {
      // Not JSON: read as signed out below.
    }
    storage.removeItem(key)
    return null
  },
  set: (tokens) => storage.setItem(key, JSON.stringify(tokens)),
  clear: () => storage.removeItem(key)
})
