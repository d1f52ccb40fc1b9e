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
