/*
 * How the page tells the user what went wrong, in their language:
 * - the API's refusals: its localized `message`, and its `details` (field name → messages) under each field;
 * - a realtime refusal: the server's message (in the client's language), never "RealtimeError: …";
 * - no answer at all: offline, a CORS refusal, or a server out of reach, told apart as far as a browser allows.
 */
import { isRealtimeError, isTalabApiError, TalabNetworkError, TalabTimeoutError } from "@talab/client-sdk"
import { $, h } from "./dom.js"
import { t } from "./i18n.js"
import { apiOrigin } from "./talab.js"
import { ltr } from "./words.js"

/**
 * Why a call got no answer. A browser gives a script the same bare `TypeError` for a CORS refusal and for a
 * server out of reach, on purpose. So ask again in `no-cors` mode, where the browser does not check CORS and
 * hands back an opaque answer: if that answer comes, the server is up and it was CORS that refused this page;
 * if it fails too, the server could not be reached. `navigator.onLine` tells a device with no network at all.
 * (A page on https calling an http API fails both ways as mixed content, and reads as out of reach.)
 */
const whyUnanswered = async (error: TalabNetworkError) => {
  if (error instanceof TalabTimeoutError) return t("timedOut", { api: ltr(apiOrigin) })
  if (!navigator.onLine) return t("youAreOffline")
  try {
    await fetch(new URL("/health/live", apiOrigin), {
      mode: "no-cors",
      cache: "no-store",
      signal: AbortSignal.timeout(10_000)
    })
    return t("corsRefused", { api: ltr(apiOrigin), origin: ltr(location.origin) })
  } catch {
    return t("unreachable", { api: ltr(apiOrigin) })
  }
}

/** Removes the field errors a form shows. */
export const clearFieldErrors = (form: HTMLFormElement) => {
  for (const old of form.querySelectorAll(".field-error")) old.remove()
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid")
}

/**
 * Shows each field's messages under its input (`name` = the API's field name); returns those of fields the form
 * has no input for, to show with the general error.
 */
export const showFieldErrors = (form: HTMLFormElement, details: Readonly<Record<string, ReadonlyArray<string>>>) => {
  clearFieldErrors(form)
  const unplaced: Array<string> = []
  for (const [name, messages] of Object.entries(details)) {
    const input = form.querySelector<HTMLInputElement>(`[name="${CSS.escape(name)}"]`)
    if (input === null) {
      unplaced.push(...messages.map((message) => `${name}: ${message}`))
      continue
    }
    input.setAttribute("aria-invalid", "true")
    const note = h("p", { class: "field-error", "data-field": name, id: `${input.id}-error` }, messages.join(" "))
    input.setAttribute("aria-describedby", note.id)
    ;(input.closest("label") ?? input).after(note)
  }
  return unplaced
}

/** Clears the page's general error line. */
export const clearError = () => {
  $("error").textContent = ""
}

/** Shows a failure: under the form's fields when the API named them, else on the page's error line. */
export const report = async (error: unknown, form?: HTMLFormElement) => {
  let text: string
  if (isTalabApiError(error)) {
    const unplaced = form && error.details ? showFieldErrors(form, error.details) : []
    text = [error.message, ...unplaced].join(" ")
  } else if (isRealtimeError(error)) {
    text = error.message
  } else if (error instanceof TalabNetworkError) {
    text = await whyUnanswered(error)
  } else {
    console.error(error)
    text = t("unexpected")
  }
  $("error").textContent = text
}
