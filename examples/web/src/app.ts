/*
 * The buyer's app, on @talab/client-sdk alone. The screen is named by the address's hash, so a reload comes back to
 * it, and the session is in localStorage, so a reload stays signed in:
 *   (signed out)            sign-in by SMS code                  screens/signIn.ts
 *   #                       my requests, post one, search        screens/home.ts
 *   #request/<id>           a request's offers, live             screens/offers.ts
 *   #chat/<conversation>    an offer's chat, live                screens/chat.ts
 */
import { $, show } from "./dom.js"
import { clearError, report } from "./errors.js"
import { applyLanguage, switchLanguage, t } from "./i18n.js"
import { showChat } from "./screens/chat.js"
import { setUpHome, showHome } from "./screens/home.js"
import { showOffers } from "./screens/offers.js"
import { setUpSignIn } from "./screens/signIn.js"
import { closeRealtime, realtime, talab } from "./talab.js"
import { ltr } from "./words.js"

const screens = ["sign-in", "home", "request-screen", "chat-screen"] as const
const showOnly = (screen: (typeof screens)[number]) => {
  for (const id of screens) show(id, id === screen)
}

let me: { id: string; phone_number: string } | undefined
/** What the screen shown must stop (its timers, listeners, subscriptions) when another takes its place. */
let leaveScreen: () => void = () => {}
let routes = 0

const route = async () => {
  const thisRoute = ++routes
  leaveScreen()
  leaveScreen = () => {}
  /** Keeps what the new screen must stop, unless the user has already moved on (then stops it now). */
  const entered = (leave: () => void) => {
    if (thisRoute === routes) leaveScreen = leave
    else leave()
  }
  clearError()
  if (me === undefined) return showOnly("sign-in")
  const [screen, id] = location.hash.slice(1).split("/")
  try {
    if (screen === "request" && id) {
      showOnly("request-screen")
      entered(
        await showOffers(id, (hash) => {
          location.hash = hash
        })
      )
    } else if (screen === "chat" && id) {
      showOnly("chat-screen")
      entered(await showChat(id, me.id))
    } else {
      showOnly("home")
      await showHome()
    }
  } catch (error) {
    await report(error)
  }
}

/** Who is signed in (GET /users/me): a stored session whose tokens the server refuses ends here, signed out. */
const enter = async () => {
  const { data } = await talab.GET("/users/me")
  me = data
  $("status").textContent = t("signedInAs", { phone: ltr(data.phone_number) })
  show("sign-out")
  realtime()
  await route()
}

talab.on("signedOut", () => {
  me = undefined
  closeRealtime()
  $("status").textContent = t("signedOut")
  show("sign-out", false)
  void route()
})

applyLanguage()
$("language").addEventListener("click", switchLanguage)
$("sign-out").addEventListener("click", () => talab.auth.signOut().catch(report))
setUpSignIn(() => void enter().catch(report))
setUpHome()
window.addEventListener("hashchange", () => void route())

if (await talab.auth.isSignedIn()) await enter().catch(report)
else await route()
