import type { TalabRestClient } from "@talab/client-sdk/rest"
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { Admin } from "./api.js"
import type { Language, MessageKey } from "./i18n.js"

/** What every screen of a signed-in admin reads: the client, the language and its words, the admin. */
export interface Console {
  readonly client: TalabRestClient
  readonly language: Language
  readonly t: (key: MessageKey, values?: Record<string, string | number>) => string
  readonly admin: Admin
}

export const ConsoleContext = createContext<Console | undefined>(undefined)

export const useConsole = (): Console => {
  const value = useContext(ConsoleContext)
  if (value === undefined) throw new Error("useConsole outside a signed-in console")
  return value
}
