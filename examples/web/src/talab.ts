/*
 * The one Talab client of the page, and its one realtime connection. The API's address comes from `?api=`
 * (default: this page's origin), so the page can be served from anywhere the server's CORS_ORIGINS allows.
 */
import { createTalabClient, type RealtimeClient, type RealtimeState, webStorageTokenStore } from "@talab/client-sdk"
import { $ } from "./dom.js"
import { language, t } from "./i18n.js"

export const apiOrigin = new URLSearchParams(location.search).get("api") ?? location.origin

export const talab = createTalabClient({
  baseUrl: apiOrigin,
  language,
  // In localStorage, so a reload (or a new tab) is still signed in; an app would use its secure storage.
  tokenStore: webStorageTokenStore(localStorage)
})

const connectionText: Record<RealtimeState, string> = {
  idle: t("offline"),
  connecting: t("connecting"),
  reconnecting: t("connecting"),
  open: t("live"),
  closed: t("offline")
}

let live: RealtimeClient | undefined
/**
 * The socket every screen shares, connecting on first use after sign-in. The SDK reconnects by itself and
 * resubscribes; screens subscribe and listen without waiting for it to open.
 */
export const realtime = () => {
  if (live === undefined) {
    live = talab.realtime()
    live.on("state", (state) => {
      $("connection").textContent = connectionText[state]
      $("connection").dataset.state = state
    })
    live.connect().catch(() => {})
  }
  return live
}

/** Closes the socket (at sign-out); the next sign-in opens a new one. */
export const closeRealtime = () => {
  live?.dispose()
  live = undefined
  $("connection").textContent = ""
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden) live?.background()
  else live?.foreground()
})
