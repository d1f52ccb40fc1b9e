import { startTestServer } from "@talab/testkit"
const s = await startTestServer({})
const J = { "content-type": "application/json" }
const phone = "+966501234569"
await fetch(s.apiUrl + "/auth/request-otp", { method: "POST", headers: J, body: JSON.stringify({ phone_number: phone }) })
const v = await (await fetch(s.apiUrl + "/auth/verify-otp", { method: "POST", headers: J, body: JSON.stringify({ phone_number: phone, otp_code: s.sms.lastCode(phone) }) })).json()
const token = v.data.tokens.access_token
for (const init of [{ headers: { ...J }, body: "{\"avatar\":1}" }, { headers: {} }, { headers: { "content-type": "multipart/form-data" }, body: "garbage" }, { headers: { "content-type": "multipart/form-data; boundary=xyz" }, body: "garbage" }]) {
  const r = await fetch(s.apiUrl + "/users/me/avatar", { method: "POST", ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
  console.log(r.status, await r.text())
}
for (const l of s.logs.lines) if (l.level !== "INFO") console.log(l.level, l.message, l.cause?.slice(0, 800))
await s.close()
