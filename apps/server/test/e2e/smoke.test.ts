import { describe, expect, it } from "vitest"
import { bothBackends, client, relaxedLimits, signInOverHttp, useServer } from "../support/harness.js"

describe.each(bothBackends)("sign-in smoke on %s", (backend) => {
  const server = useServer(backend, { settings: relaxedLimits })

  it("signs a new user in and reads their profile", async () => {
    const api = client(server())
    const me = await signInOverHttp(server(), api)
    expect(me.user.language).toBe("ar")
    const profile = await api.get("/users/me", { token: me.token })
    expect(profile.status).toBe(200)
    expect(profile.body.data.id).toBe(me.userId)
    expect(profile.body.data.seller_profile).toBeNull()
  })
})
