// Signs in against a testkit server with the SDK, both installed from the tarballs of `pnpm pack:packages`.
import { createTalabClient } from "@talab/client-sdk"
import { isTalabApiError } from "@talab/client-sdk/errors"
import { newPhoneNumber, startTestServer } from "@talab/testkit"

const server = await startTestServer()
try {
  const talab = createTalabClient({ baseUrl: server.baseUrl, language: "en" })
  const phone = newPhoneNumber()
  await talab.auth.requestOtp(phone)
  const code: string | undefined = server.sms.lastCode(phone)
  if (code === undefined) throw new Error("the testkit recorded no code")
  const { user } = await talab.auth.signIn({ phoneNumber: phone, otpCode: code })
  const { data: me } = await talab.GET("/users/me")
  const refused = await talab.GET("/requests/{id}", { params: { path: { id: crypto.randomUUID() } } }).catch((e) => e)
  if (me.id !== user.id || !isTalabApiError(refused, "NOT_FOUND")) throw new Error("unexpected answers")
  console.log(`signed in as ${me.phone_number}`)
} finally {
  await server.close()
}
