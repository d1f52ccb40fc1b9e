// Signs in against a testkit server with the SDK, both installed from the tarballs of `pnpm pack:packages`,
// checks that the server serves the OpenAPI document of the contract package and that its clock expires the
// token, and ends by itself once the server is closed (no process.exit: .ci/tarballs gives it a time limit).
import { createTalabClient } from "@talab/client-sdk"
import { isTalabApiError } from "@talab/client-sdk/errors"
import { openApiDocument } from "@talab/contract"
import { newPhoneNumber, startTestServer } from "@talab/testkit"

const server = await startTestServer()
try {
  const talab = createTalabClient({ baseUrl: server.baseUrl, language: "en" })
  const phone = newPhoneNumber()
  await talab.auth.requestOtp(phone)
  const code: string | undefined = server.sms.lastCode(phone)
  if (code === undefined) throw new Error("the testkit recorded no code")
  const { user, tokens } = await talab.auth.signIn({ phoneNumber: phone, otpCode: code })
  const { data: me } = await talab.GET("/users/me")
  const refused = await talab.GET("/requests/{id}", { params: { path: { id: crypto.randomUUID() } } }).catch((e) => e)
  if (me.id !== user.id || !isTalabApiError(refused, "NOT_FOUND")) throw new Error("unexpected answers")
  const served = await (await fetch(new URL("/api/v1/openapi.json", server.baseUrl))).json()
  if (JSON.stringify(served) !== JSON.stringify(openApiDocument())) throw new Error("the served document differs")
  server.clock.advance("25 hours")
  const expired = await fetch(new URL("/api/v1/users/me", server.baseUrl), {
    headers: { authorization: `Bearer ${tokens.access_token}` }
  })
  if (expired.status !== 401) throw new Error(`a token 25 hours old got ${expired.status}, not 401`)
  console.log(
    `signed in as ${me.phone_number}; the served OpenAPI document is @talab/contract's; the clock expires the token`
  )
} finally {
  await server.close()
}
