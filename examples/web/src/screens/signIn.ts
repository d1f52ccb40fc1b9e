/** Sign-in by a code sent by SMS. The SDK stores the tokens (localStorage here), so this runs once per session. */
import { $, show, value } from "../dom.js"
import { clearFieldErrors, report } from "../errors.js"
import { t } from "../i18n.js"
import { talab } from "../talab.js"
import { ltr } from "../words.js"

/** Wires the two forms; `signedIn` runs after a successful sign-in. */
export const setUpSignIn = (signedIn: () => void) => {
  let phone = ""
  const phoneForm = $<HTMLFormElement>("phone-form")
  const codeForm = $<HTMLFormElement>("code-form")

  phoneForm.addEventListener("submit", async (event) => {
    event.preventDefault()
    clearFieldErrors(phoneForm)
    try {
      phone = value("phone")
      await talab.auth.requestOtp(phone)
      show("code-form")
      $("status").textContent = t("codeSent", { phone: ltr(phone) })
      $("code").focus()
    } catch (error) {
      await report(error, phoneForm)
    }
  })

  codeForm.addEventListener("submit", async (event) => {
    event.preventDefault()
    clearFieldErrors(codeForm)
    try {
      await talab.auth.signIn({
        phoneNumber: phone,
        otpCode: value("code"),
        device: { platform: "web", name: "Talab web example" }
      })
      codeForm.reset()
      show("code-form", false)
      signedIn()
    } catch (error) {
      await report(error, codeForm)
    }
  })
}
