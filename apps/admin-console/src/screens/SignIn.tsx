import type { TalabRestClient } from "@talab/client-sdk/rest"
import { useEffect, useId, useRef, useState } from "preact/hooks"
import { type Admin, errorText } from "../api.js"
import { type Language, type MessageKey, translate } from "../i18n.js"

/** The admin as the console keeps them, from a user the API answered; undefined for anybody else. */
export const adminOf = (user: {
  readonly id: string
  readonly name: string | null
  readonly phone_number: string
  readonly language: Language
  readonly is_admin: boolean
}): Admin | undefined =>
  user.is_admin ? { id: user.id, name: user.name, phoneNumber: user.phone_number, language: user.language } : undefined

/**
 * Phone number, then the code sent to it. Anybody may get a code, but only an administrator gets past: anyone
 * else is signed out again at once and told why.
 */
export const SignIn = (props: {
  readonly client: TalabRestClient
  readonly language: Language
  readonly notice: MessageKey | undefined
  readonly onSignedIn: (admin: Admin) => void
  readonly onRefused: () => void
}) => {
  const { client, language } = props
  const t = (key: MessageKey, values?: Record<string, string>) => translate(language, key, values)
  const [phone, setPhone] = useState("")
  const [code, setCode] = useState("")
  const [step, setStep] = useState<"phone" | "code">("phone")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const codeInput = useRef<HTMLInputElement>(null)
  const ids = { phone: useId(), phoneHint: useId(), code: useId(), heading: useId() }
  useEffect(() => {
    if (step === "code") codeInput.current?.focus()
  }, [step])

  const run = async (work: () => Promise<void>) => {
    setBusy(true)
    setError(undefined)
    try {
      await work()
    } catch (failure) {
      setError(errorText(language, failure))
    } finally {
      setBusy(false)
    }
  }
  const requestCode = () =>
    run(async () => {
      await client.auth.requestOtp(phone.trim())
      setStep("code")
    })
  const signIn = () =>
    run(async () => {
      const { user } = await client.auth.signIn({ phoneNumber: phone.trim(), otpCode: code.trim() })
      const admin = adminOf(user)
      if (admin !== undefined) return props.onSignedIn(admin)
      // Not an admin: the session just made is ended at once, so nothing of it is left in this browser.
      await client.auth.signOut().catch(() => undefined)
      setCode("")
      setStep("phone")
      props.onRefused()
    })

  return (
    <main id="main" class="sign-in" aria-labelledby={ids.heading}>
      <h1 id={ids.heading} tabIndex={-1}>
        {t("signInHeading")}
      </h1>
      <p>{t("signInIntro")}</p>
      {props.notice === undefined ? null : (
        <p class="notice notice-error" role="alert">
          <span aria-hidden="true">⚠ </span>
          {t(props.notice)}
        </p>
      )}
      {step === "phone" ? (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            void requestCode()
          }}
        >
          <div class="field">
            <label for={ids.phone}>{t("phoneLabel")}</label>
            <input
              id={ids.phone}
              type="tel"
              dir="ltr"
              autocomplete="tel"
              required
              aria-describedby={ids.phoneHint}
              value={phone}
              onInput={(event) => setPhone(event.currentTarget.value)}
            />
            <small id={ids.phoneHint} class="muted">
              {t("phoneHint")}
            </small>
          </div>
          <button type="submit" class="primary" disabled={busy}>
            {t("sendCode")}
          </button>
        </form>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            void signIn()
          }}
        >
          <p role="status">{t("codeSent", { phone: `\u2068${phone.trim()}\u2069` })}</p>
          <div class="field">
            <label for={ids.code}>{t("codeLabel")}</label>
            <input
              id={ids.code}
              ref={codeInput}
              dir="ltr"
              inputMode="numeric"
              autocomplete="one-time-code"
              required
              value={code}
              onInput={(event) => setCode(event.currentTarget.value)}
            />
          </div>
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              {t("signIn")}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setStep("phone")
                setCode("")
                setError(undefined)
              }}
            >
              {t("otherNumber")}
            </button>
          </div>
        </form>
      )}
      {error === undefined ? null : (
        <p class="notice notice-error" role="alert">
          <span aria-hidden="true">⚠ </span>
          {error}
        </p>
      )}
    </main>
  )
}
