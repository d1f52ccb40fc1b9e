import { isTalabApiError } from "../api/errors.js"
import type { Emitter } from "../util/Emitter.js"
import type { SessionTokens, TokenStore } from "./TokenStore.js"

/** Why a session ended: the app signed out, or the server refused the refresh token (expired, revoked). */
export type SignedOutReason = "signed_out" | "session_expired"

/** Events of the client's session. */
export interface SessionEvents {
  /** Tokens were stored after a successful sign-in. */
  readonly signedIn: { readonly tokens: SessionTokens }
  /** The session ended and the token store was cleared. */
  readonly signedOut: { readonly reason: SignedOutReason }
  /** A new access token replaced an expired one. */
  readonly tokensRefreshed: { readonly tokens: SessionTokens }
}

/** Exchanges a refresh token for a new access token (POST /auth/refresh). */
export type RefreshCall = (
  refreshToken: string
) => Promise<{ readonly accessToken: string; readonly refreshToken?: string }>

/**
 * The session's tokens over the app's token store: read once then kept in memory, refreshed at most
 * once at a time however many calls find their token expired, and cleared when the server refuses the
 * refresh token.
 */
export class Session {
  private cached: SessionTokens | null | undefined
  private refreshing: Promise<string | undefined> | undefined
  // Bumped on every sign-in and sign-out, so a refresh that finishes after one does not resurrect old tokens.
  private generation = 0

  constructor(
    private readonly store: TokenStore,
    private readonly refreshCall: RefreshCall,
    private readonly events: Emitter<{ [K in keyof SessionEvents]: SessionEvents[K] }>
  ) {}

  /** The stored tokens, or null when signed out. */
  async tokens(): Promise<SessionTokens | null> {
    if (this.cached === undefined) {
      const generation = this.generation
      const stored = (await this.store.get()) ?? null
      if (this.cached === undefined && generation === this.generation) this.cached = stored
    }
    return this.cached ?? null
  }

  /** The current access token, if signed in. */
  async accessToken(): Promise<string | undefined> {
    return (await this.tokens())?.accessToken
  }

  /** Stores the tokens of a new sign-in. */
  async signIn(tokens: SessionTokens): Promise<void> {
    this.generation += 1
    this.cached = tokens
    await this.store.set(tokens)
    this.events.emit("signedIn", { tokens })
  }

  /** Clears the store and tells the listeners, once per session. */
  async signOut(reason: SignedOutReason): Promise<void> {
    const wasSignedIn = (await this.tokens()) !== null
    this.generation += 1
    this.cached = null
    await this.store.clear()
    if (wasSignedIn) this.events.emit("signedOut", { reason })
  }

  /**
   * After the server refused `rejectedAccessToken`: a newer access token (one another call already
   * obtained, or a fresh one from POST /auth/refresh), or undefined when the session is over. A refused
   * refresh token signs out; a network failure or server error is thrown and keeps the session.
   */
  async renew(rejectedAccessToken: string): Promise<string | undefined> {
    const current = await this.tokens()
    if (current === null) return undefined
    if (current.accessToken !== rejectedAccessToken) return current.accessToken
    this.refreshing ??= this.refresh(current).finally(() => {
      this.refreshing = undefined
    })
    return this.refreshing
  }

  private async refresh(current: SessionTokens): Promise<string | undefined> {
    const generation = this.generation
    let answer: Awaited<ReturnType<RefreshCall>>
    try {
      answer = await this.refreshCall(current.refreshToken)
    } catch (error) {
      if (isTalabApiError(error) && error.status === 401) {
        if (generation === this.generation) await this.signOut("session_expired")
        return undefined
      }
      throw error
    }
    if (generation !== this.generation) return (await this.tokens())?.accessToken
    const tokens: SessionTokens = {
      accessToken: answer.accessToken,
      refreshToken: answer.refreshToken ?? current.refreshToken
    }
    this.cached = tokens
    await this.store.set(tokens)
    this.events.emit("tokensRefreshed", { tokens })
    return tokens.accessToken
  }
}
