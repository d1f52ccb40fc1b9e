import { readFileSync } from "node:fs"
import type { TestServer } from "@talab/testkit"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { chatScene, expectError, Marketplace, marketSettings } from "../support/fixtures.js"
import { bothBackends, client, newPhone, relaxedLimits, type SignedIn, useServer } from "../support/harness.js"
import { useTwoInstances } from "../support/two-instances.js"
import { connectAs, type WsClient } from "../support/ws-client.js"

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const png = new Uint8Array(readFileSync(new URL("../fixtures/plain.png", import.meta.url)))

const imageForm = () => {
  const form = new FormData()
  form.append("image", new Blob([png as Uint8Array<ArrayBuffer>], { type: "image/png" }), "photo.png")
  return form
}

const uploadTo = async (server: TestServer, me: SignedIn) => {
  const answer = await client(server).post("/images", { token: me.token, rawBody: imageForm() })
  expect(answer.status).toBe(201)
  return answer.body.data
}

describe.each(bothBackends)("chat attachments over REST on %s", (backend) => {
  const server = useServer(backend, { settings: marketSettings })
  const api = () => client(server())
  const m = () => new Marketplace(server(), api(), marketSettings.adminPhoneNumbers[0]!)
  const send = (sender: SignedIn, conversationId: string, body: Record<string, unknown>) =>
    api().raw.post(`/conversations/${conversationId}/messages`, {
      token: sender.token,
      body,
      headers: { "accept-language": "en" }
    })

  it('a message of photos alone is stored with text "", shown with its attachments in the answer, the history and after_seq', async () => {
    const scene = await chatScene(m())
    const [a, b] = [await uploadTo(server(), scene.seller), await uploadTo(server(), scene.seller)]
    const answer = await send(scene.seller, scene.conversationId, { attachment_ids: [b.id, a.id] })
    expect(answer.status).toBe(201)
    const sent = answer.body.data
    expect(sent.message_text).toBe("")
    expect(sent.attachments.map((shown: { id: string }) => shown.id)).toEqual([b.id, a.id])
    const withText = await send(scene.seller, scene.conversationId, { message_text: "the back", attachment_ids: [] })
    expect(withText.status).toBe(201)
    expect(withText.body.data.attachments).toEqual([])
    const empty = await send(scene.seller, scene.conversationId, {
      message_text: "",
      attachment_ids: [(await uploadTo(server(), scene.seller)).id]
    })
    expect(empty.body.data.message_text).toBe("")

    for (const reader of [scene.buyer, scene.seller]) {
      const history = (await api().get(`/conversations/${scene.conversationId}/messages`, { token: reader.token })).body
        .data
      const shown = history.messages.find((message) => message.id === sent.id)!
      expect(shown.attachments.map((photo) => photo.id)).toEqual([b.id, a.id])
      expect(history.messages.find((message) => message.id === withText.body.data.id)!.attachments).toEqual([])
      const after = (
        await api().get(`/conversations/${scene.conversationId}/messages?after_seq=${sent.seq - 1}`, {
          token: reader.token
        })
      ).body.data
      expect(after.messages[0]!.attachments.map((photo) => photo.id)).toEqual([b.id, a.id])
      for (const photo of shown.attachments) {
        const file = await fetch(photo.url)
        expect(file.status).toBe(200)
        expect(file.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/)
      }
    }
    const stored = await server().storedImages()
    expect(stored.find((image) => image.id === b.id)).toMatchObject({
      holderKind: "message",
      holderId: sent.id,
      position: 0
    })
  })

  it("only the two parties see attachments: a stranger and the other seller get 403 and no URL, signed out 401", async () => {
    const scene = await chatScene(m())
    const photo = await uploadTo(server(), scene.buyer)
    expect((await send(scene.buyer, scene.conversationId, { attachment_ids: [photo.id] })).status).toBe(201)
    const stranger = await m().buyer("Stranger")
    const otherSeller = await m().approvedSeller("Other")
    for (const outsider of [stranger, otherSeller]) {
      const answer = await api().get(`/conversations/${scene.conversationId}/messages`, { token: outsider.token })
      expect(answer.status).toBe(403)
      expect(JSON.stringify(answer.body)).not.toContain(photo.id)
    }
    expectError(await api().raw.get(`/conversations/${scene.conversationId}/messages`), 401, "UNAUTHORIZED")
  })

  it("refuses neither text nor attachment, 5 attachments, a repeat, another's or attached image, storing nothing and keeping seq gapless", async () => {
    const scene = await chatScene(m())
    const first = (await send(scene.seller, scene.conversationId, { message_text: "hello" })).body.data
    const theirs = await uploadTo(server(), scene.buyer)
    const mine = await uploadTo(server(), scene.seller)
    const used = await uploadTo(server(), scene.seller)
    expect((await send(scene.seller, scene.conversationId, { attachment_ids: [used.id] })).status).toBe(201)
    const five = await Promise.all(Array.from({ length: 5 }, () => uploadTo(server(), scene.seller)))
    expectError(await send(scene.seller, scene.conversationId, {}), 400, "VALIDATION_ERROR", ["message_text"])
    expectError(await send(scene.seller, scene.conversationId, { message_text: "" }), 400, "VALIDATION_ERROR", [
      "message_text"
    ])
    expectError(
      await send(scene.seller, scene.conversationId, { message_text: "  ", attachment_ids: [] }),
      400,
      "VALIDATION_ERROR",
      ["message_text"]
    )
    for (const ids of [
      five.map((image) => image.id),
      [mine.id, mine.id],
      [theirs.id],
      [mine.id, theirs.id],
      [used.id]
    ]) {
      const error = expectError(
        await send(scene.seller, scene.conversationId, { message_text: "x", attachment_ids: ids }),
        400,
        "VALIDATION_ERROR"
      )
      expect(Object.keys(error.details)).toEqual(["attachment_ids"])
    }
    const next = (
      await send(scene.seller, scene.conversationId, { message_text: "still here", attachment_ids: [mine.id] })
    ).body.data
    expect(next.seq).toBe(first.seq + 2)
    const history = (await api().get(`/conversations/${scene.conversationId}/messages`, { token: scene.buyer.token }))
      .body.data
    expect(history.messages.map((message) => message.seq).sort((x, y) => x - y)).toEqual([
      first.seq,
      first.seq + 1,
      first.seq + 2
    ])
  })

  it("a push for photos alone says so in the recipient's language", async () => {
    const scene = await chatScene(m())
    expect(
      (
        await api().post("/device-tokens", {
          token: scene.buyer.token,
          body: { platform: "android", push_token: `t-${scene.buyer.userId}` }
        })
      ).status
    ).toBe(201)
    const photo = await uploadTo(server(), scene.seller)
    expect((await send(scene.seller, scene.conversationId, { attachment_ids: [photo.id] })).status).toBe(201)
    const push = await server().pushes.waitFor((p) => p.userId === scene.buyer.userId && p.type === "message", 10_000)
    // The buyer's language is Arabic until they choose another.
    expect(push.body).toBe("📷 صورة")
  })
})

/** Two instances on one database, Redis and FILE_STORE=database: a photo sent on one is seen and served on the other. */
describe("chat attachments over the WebSocket across two instances", () => {
  const adminPhone = newPhone()
  const cluster = useTwoInstances({
    redisUrl: REDIS_URL,
    settings: { ...relaxedLimits, adminPhoneNumbers: [adminPhone], fileStore: "database" }
  })
  let m: Marketplace
  const opened: Array<WsClient> = []
  beforeAll(() => {
    m = new Marketplace(cluster.a, client(cluster.a), adminPhone)
  })
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.close()
  })

  it("acks the stored message with its attachments and delivers them on the other instance; the URLs work on both", async () => {
    const scene = await chatScene(m)
    const sellerOnA = await connectAs(cluster.a.wsUrl, scene.seller.token, [scene.conversationId])
    const buyerOnB = await connectAs(cluster.b.wsUrl, scene.buyer.token, [scene.conversationId])
    opened.push(sellerOnA, buyerOnB)
    const photo = await uploadTo(cluster.a, scene.seller)
    sellerOnA.send({
      type: "message",
      conversation_id: scene.conversationId,
      attachment_ids: [photo.id],
      client_id: "p-1"
    })
    const ack = await sellerOnA.nextOfType("ack")
    expect(ack.data.message_text).toBe("")
    expect(ack.data.attachments.map((shown: { id: string }) => shown.id)).toEqual([photo.id])
    const delivered = await buyerOnB.nextOfType("message")
    expect(delivered.data).toEqual(ack.data)
    const url: string = delivered.data.attachments[0].url
    const onB = url.replace(cluster.a.baseUrl, cluster.b.baseUrl)
    expect((await fetch(url)).status).toBe(200)
    expect((await fetch(onB)).status).toBe(200)

    // A refused frame stores nothing and says why.
    sellerOnA.send({
      type: "message",
      conversation_id: scene.conversationId,
      attachment_ids: [photo.id],
      client_id: "p-2"
    })
    const error = await sellerOnA.nextOfType("error")
    expect(error.code).toBe("VALIDATION_ERROR")
    // The catch-up after the ack's seq shows the attachments too.
    const history = (
      await client(cluster.b).get(`/conversations/${scene.conversationId}/messages?after_seq=${ack.data.seq - 1}`, {
        token: scene.buyer.token
      })
    ).body.data
    expect(history.messages.map((message) => message.attachments.map((shown) => shown.id))).toEqual([[photo.id]])
  })
})
