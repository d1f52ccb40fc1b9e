import { isTalabApiError, TalabNetworkError } from "@talab/client-sdk/errors"
import { createTalabRestClient, type TalabRestClient, type TokenStore } from "@talab/client-sdk/rest"
import { type Language, translate } from "./i18n.js"

/** The signed-in admin as verify-otp and GET /users/me show them. */
export interface Admin {
  readonly id: string
  readonly name: string | null
  readonly phoneNumber: string
  readonly language: Language
}

const SESSION_KEY = "talab.admin.session"

/*
 * The session lives in this tab's sessionStorage: a reload keeps the admin signed in, closing the tab forgets it,
 * and no other tab or later visitor of the machine finds it. The page's content policy lets no other script run.
 */
const tabTokenStore: TokenStore = {
  get: () => {
    const saved = sessionStorage.getItem(SESSION_KEY)
    return saved === null ? null : JSON.parse(saved)
  },
  set: (tokens) => sessionStorage.setItem(SESSION_KEY, JSON.stringify(tokens)),
  clear: () => sessionStorage.removeItem(SESSION_KEY)
}

/** The client of the API on this page's own origin (the console is served by the server it drives). */
export const makeClient = (language: Language, onSignedOut: () => void): TalabRestClient =>
  createTalabRestClient({ baseUrl: location.origin, language, tokenStore: tabTokenStore, onSignedOut })

/** What to show for a failed call: the API's own message (in the language asked for), or ours for no answer. */
export const errorText = (language: Language, error: unknown): string => {
  if (isTalabApiError(error)) {
    // A 400 names each field it refused; those words come from the API too.
    const problems = Object.entries(error.details ?? {}).map(([field, messages]) => `${field}: ${messages.join(", ")}`)
    return problems.length === 0 ? error.message : `${error.message} (${problems.join("; ")})`
  }
  if (error instanceof TalabNetworkError) return translate(language, "networkError")
  return error instanceof Error ? error.message : String(error)
}
