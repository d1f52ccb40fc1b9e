// An app's first test, written against @talab/client-sdk and @talab/testkit as installed from a registry: the
// SDK signs in to the testkit's server. It ends by itself once the server is closed (.ci/release-check gives it a
// time limit).
import { createTalabClient } from "@talab/client-sdk"
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
  if (me.id !== user.id) throw new Error("/users/me answered another user")
  console.log(`signed in as ${me.phone_number} with the SDK against the testkit's server`)
} finally {
  await server.close()
}
