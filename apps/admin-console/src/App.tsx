import { useEffect, useLayoutEffect, useMemo, useState } from "preact/hooks"
import { type Admin, errorText, makeClient } from "./api.js"
import { type Console, ConsoleContext } from "./context.js"
import { browserLanguage, type Language, type MessageKey, translate } from "./i18n.js"
import { href, type Route, useRoute } from "./route.js"
import { Applications } from "./screens/Applications.js"
import { AuditLog } from "./screens/AuditLog.js"
import { ReportDetail } from "./screens/ReportDetail.js"
import { Reports } from "./screens/Reports.js"
import { adminOf, SignIn } from "./screens/SignIn.js"
import { Users } from "./screens/Users.js"

/** The sections of the console, in the order the navigation lists them. */
const sections: ReadonlyArray<{ readonly path: string; readonly label: MessageKey }> = [
  { path: "applications", label: "navApplications" },
  { path: "reports", label: "navReports" },
  { path: "users", label: "navUsers" },
  { path: "audit", label: "navAudit" }
]

const Screen = ({ route }: { route: Route }) => {
  switch (route.segments[0]) {
    case "reports": {
      const id = route.segments[1]
      return id === undefined ? <Reports route={route} /> : <ReportDetail id={id} />
    }
    case "users":
      return <Users route={route} />
    case "audit":
      return <AuditLog route={route} />
    default:
      return <Applications route={route} />
  }
}

/**
 * The console: the sign-in until an administrator is signed in, then the sections. The page's language and
 * direction follow the admin's own `language` (the browser's before sign-in).
 */
export const App = () => {
  const [language, setLanguage] = useState<Language>(browserLanguage)
  // undefined while the saved session (if any) is checked; null when nobody is signed in.
  const [admin, setAdmin] = useState<Admin | null | undefined>(undefined)
  const [notice, setNotice] = useState<MessageKey | undefined>(undefined)
  const client = useMemo(
    () =>
      makeClient(language, () => {
        setAdmin(null)
      }),
    // One client for the page; its language is set below.
    []
  )
  const route = useRoute()
  const t = (key: MessageKey, values?: Record<string, string | number>) => translate(language, key, values)

  // Before the paint: text in the new language is never on screen under the old `lang` (a screen reader would read
  // Arabic with English rules).
  useLayoutEffect(() => {
    client.setLanguage(language)
    document.documentElement.lang = language
    document.documentElement.dir = language === "ar" ? "rtl" : "ltr"
    document.title = translate(language, "title")
  }, [language])

  // A reload keeps the tab's session: who is it, and are they still an admin?
  useEffect(() => {
    void (async () => {
      if (!(await client.auth.isSignedIn())) return setAdmin(null)
      try {
        const { data: user } = await client.GET("/users/me")
        const known = adminOf(user)
        if (known === undefined) {
          await client.auth.signOut().catch(() => undefined)
          setNotice("notAdmin")
          return setAdmin(null)
        }
        setLanguage(known.language)
        setAdmin(known)
      } catch {
        setAdmin(null)
      }
    })()
  }, [])

  // A new screen is announced by moving focus to its heading.
  const screenKey = route.segments.join("/")
  useEffect(() => {
    if (admin) document.querySelector<HTMLElement>("main h1")?.focus()
  }, [screenKey, admin === undefined || admin === null])

  if (admin === undefined) return <p class="muted">{t("loading")}</p>

  const switchLanguage = async () => {
    const next: Language = language === "ar" ? "en" : "ar"
    if (admin === null) return setLanguage(next)
    // The console follows the admin's saved language, so switching it saves it (their pushes follow it too).
    try {
      const { data: user } = await client.PUT("/users/me", { body: { language: next } })
      setAdmin({ ...admin, language: user.language })
      setLanguage(user.language)
    } catch (error) {
      alert(errorText(language, error))
    }
  }

  const languageButton = (
    <button
      type="button"
      lang={language === "ar" ? "en" : "ar"}
      aria-label={t("switchLanguageLabel")}
      onClick={switchLanguage}
    >
      {t("switchLanguage")}
    </button>
  )

  if (admin === null)
    return (
      <>
        <header class="top">
          <span class="brand">{t("title")}</span>
          {languageButton}
        </header>
        <SignIn
          client={client}
          language={language}
          notice={notice}
          onSignedIn={(signedIn) => {
            setNotice(undefined)
            setLanguage(signedIn.language)
            setAdmin(signedIn)
          }}
          onRefused={() => setNotice("notAdmin")}
        />
      </>
    )

  const current = route.segments[0] ?? "applications"
  const value: Console = { client, language, t, admin }
  return (
    <ConsoleContext.Provider value={value}>
      {/* A button, not a link to #main: the hash is the console's route. */}
      <button type="button" class="skip" onClick={() => document.querySelector<HTMLElement>("main h1")?.focus()}>
        {t("skipToContent")}
      </button>
      <header class="top">
        <span class="brand">{t("title")}</span>
        <span class="muted">{t("signedInAs", { name: `\u2068${admin.name ?? admin.phoneNumber}\u2069` })}</span>
        {languageButton}
        <button
          type="button"
          onClick={() => {
            void client.auth.signOut().finally(() => setAdmin(null))
          }}
        >
          {t("signOut")}
        </button>
      </header>
      <nav class="sections" aria-label={t("navLabel")}>
        <ul>
          {sections.map((section) => (
            <li key={section.path}>
              <a href={href(section.path)} aria-current={current === section.path ? "page" : undefined}>
                {t(section.label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">
        <Screen route={route} />
      </main>
    </ConsoleContext.Provider>
  )
}
