import { Effect } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { statementsSentBy } from "../../../../packages/http-server/test/support/statements-sent.js"
import { eventually } from "../support/eventually.js"
import { chatScene, Marketplace, marketplaceSettings } from "../support/fixtures.js"
import { client, newPhone, type SignedIn, useServerWithDatabase } from "../support/harness.js"
import { runSql } from "../support/postgres.js"
import {
  expectGatheredWithoutFallback,
  fallbacksLogged,
  refuseMarkedRows,
  withSlowMarkedRows
} from "../support/refused-rows.js"
import { seqRange } from "../support/seq.js"
import { useInstanceBeside } from "../support/two-instances.js"
import { connectAs } from "../support/ws-client.js"

/**
 * Messages sent at the same moment are stored in one transaction (chat/MessageBatcher.ts), on PostgreSQL: each
 * still gets its own answer, its conversation's next seq without gaps, in the order each sender sent them, and a
 * message that fails (a rule, or a row the database refuses) fails alone. Rows of one transaction share their
 * `xmin`, which is how the tests see that messages were stored together.
 */
describe("messages stored in batches on postgres", { timeout: 90_000 }, () => {
  const adminPhone = newPhone()
  const suite = useServerWithDatabase("postgres", marketplaceSettings([adminPhone]))
  const market = () => new Marketplace(suite.server(), client(suite.server()), adminPhone)
  const sql = <A>(statement: Parameters<typeof runSql<A>>[1]) => runSql(suite.databaseUrl()!, statement)

  refuseMarkedRows(() => suite.databaseUrl()!, "messages", "message_text")

  // An instance writes one batch of a kind at a time: batches that overlap are another instance's.
  const beside = useInstanceBeside(() => suite.databaseUrl()!, marketplaceSettings([adminPhone]))

  const send = (sender: SignedIn, conversationId: string, text: string, clientId?: string, server = suite.server()) =>
    client(server).raw.post(`/conversations/${conversationId}/messages`, {
      token: sender.token,
      body: clientId === undefined ? { message_text: text } : { message_text: text, client_id: clientId }
    })
  const stored = (conversationId: string) =>
    sql(
      (s) =>
        s<{ seq: number; text: string; sender: string; at: Date; tx: string }>`
        SELECT seq, message_text AS text, sender_id AS sender, created_at AS at, xmin::text AS tx
        FROM messages WHERE conversation_id = ${conversationId} ORDER BY seq`
    )

  it("numbers concurrent messages of many conversations 1, 2, 3 … each, in each sender's order, stored together", async () => {
    const m = market()
    const scenes = await Promise.all(Array.from({ length: 4 }, () => chatScene(m)))
    const perSender = 8
    // Every party of every conversation sends its messages one after the other, all parties at once.
    await Promise.all(
      scenes.flatMap((scene) =>
        [scene.buyer, scene.seller].map(async (sender, who) => {
          for (let k = 0; k < perSender; k++) {
            expect((await send(sender, scene.conversationId, `${who}-${k}`)).status).toBe(201)
          }
        })
      )
    )
    const transactions = new Set<string>()
    for (const scene of scenes) {
      const rows = await stored(scene.conversationId)
      expect(rows.map((row) => row.seq)).toEqual(seqRange(1, 2 * perSender))
      for (const who of [0, 1]) {
        expect(rows.filter((row) => row.text.startsWith(`${who}-`)).map((row) => row.text)).toEqual(
          seqRange(0, perSender - 1).map((k) => `${who}-${k}`)
        )
      }
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.at.getTime()).toBeGreaterThan(rows[i - 1]!.at.getTime())
      for (const row of rows) transactions.add(row.tx)
    }
    // 64 messages in fewer transactions than messages: some were stored together.
    expect(transactions.size).toBeLessThan(scenes.length * 2 * perSender)
  })

  it("a message the database refuses fails alone; its batch-mates are stored, without a gap", async () => {
    const m = market()
    const scene = await chatScene(m)
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, k) => send(scene.buyer, scene.conversationId, `fine ${k}`)),
      send(scene.seller, scene.conversationId, "refuse me"),
      ...Array.from({ length: 6 }, (_, k) => send(scene.seller, scene.conversationId, `also fine ${k}`))
    ])
    expect(answers.map((a) => a.status)).toEqual([...Array(6).fill(201), 500, ...Array(6).fill(201)])
    const rows = await stored(scene.conversationId)
    expect(rows.map((row) => row.seq)).toEqual(seqRange(1, 12))
    expect(rows.map((row) => row.text)).not.toContain("refuse me")
    expect(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.seq)).size).toBe(12)
  })

  it("two instances' batches in which sellers answer in opposite orders do not deadlock on the sellers' reply figures", async () => {
    await expectGatheredWithoutFallback([suite.server().logs, beside().logs], "messages", opposingBatches)
  })

  it("a client_id sent again later is answered with the first message by the batch's own statements, not message by message", async () => {
    const scene = await chatScene(market())
    const socket = await connectAs(suite.server().wsUrl, scene.buyer.token, [scene.conversationId])
    try {
      const sendOnce = async () => {
        socket.send({
          type: "message",
          conversation_id: scene.conversationId,
          message_text: "once",
          client_id: "twice"
        })
        return (await socket.nextOfType("ack")).data
      }
      const first = await sendOnce()
      const before = fallbacksLogged([suite.server().logs])
      const { result: again, statements } = await Effect.runPromise(statementsSentBy(Effect.promise(sendOnce)))
      expect(again).toEqual(first)
      expect(fallbacksLogged([suite.server().logs])).toBe(before)
      expect(statements.filter((text) => /FROM conversations WHERE id = \$1/.test(text))).toEqual([])
      expect((await stored(scene.conversationId)).map((row) => row.text)).toEqual(["once"])
    } finally {
      socket.close()
    }
  })

  /**
   * Runs `use` with two more connections to the database: `holder`, in a transaction that holds the
   * conversation's row, and `prober`, outside it (a transaction reads pg_stat_activity once), and
   * `batchWaits`, which resolves once a batch's lock statement waits on a lock.
   */
  const whileConversationHeld = async (
    conversationId: string,
    use: (clients: { holder: pg.Client; prober: pg.Client; batchWaits: () => Promise<unknown> }) => Promise<void>
  ) => {
    const holder = new pg.Client({ connectionString: suite.databaseUrl()! })
    const prober = new pg.Client({ connectionString: suite.databaseUrl()! })
    await Promise.all([holder.connect(), prober.connect()])
    const batchWaits = () =>
      eventually(async () => {
        const { rows } = await prober.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND query LIKE '%WITH sellers AS MATERIALIZED%'`
        )
        return rows.length > 0 ? true : undefined
      }, "the batch waiting on the conversation's lock")
    try {
      await holder.query("BEGIN")
      await holder.query("SELECT id FROM conversations WHERE id = $1 FOR UPDATE", [conversationId])
      await use({ holder, prober, batchWaits })
    } finally {
      await Promise.allSettled([holder.end(), prober.end()])
    }
  }

  it("a batch that goes again message by message takes back the events it wrote with its insert", async () => {
    const scene = await chatScene(market())
    const socket = await connectAs(suite.server().wsUrl, scene.buyer.token, [scene.conversationId])
    try {
      await whileConversationHeld(scene.conversationId, async ({ holder, batchWaits }) => {
        const before = fallbacksLogged([suite.server().logs])
        socket.send({
          type: "message",
          conversation_id: scene.conversationId,
          message_text: "raced",
          client_id: "race"
        })
        await batchWaits()
        // The same client_id stored by another writer while the batch waits: its snapshot does not see it, so its
        // insert (events included) skips the row and the batch goes again message by message.
        const { rows } = await holder.query(
          `INSERT INTO messages (id, conversation_id, sender_id, message_text, client_id, seq, created_at)
           VALUES (gen_random_uuid(), $1, $2, 'raced', 'race', 1, now()) RETURNING id`,
          [scene.conversationId, scene.buyer.userId]
        )
        await holder.query("COMMIT")
        expect((await socket.nextOfType("ack")).data).toMatchObject({ id: rows[0].id })
        expect(fallbacksLogged([suite.server().logs])).toBe(before + 1)
        const events = await sql(
          (s) => s<{ id: string }>`SELECT id FROM outbox_events
            WHERE type = 'MessageSent' AND payload->>'conversationId' = ${scene.conversationId}`
        )
        expect(events).toEqual([])
      })
    } finally {
      socket.close()
    }
  })

  it("a batch holds its sellers' profiles before it waits on a conversation (the ports' lock order), in one statement", async () => {
    const scene = await chatScene(market())
    await whileConversationHeld(scene.conversationId, async ({ holder, prober, batchWaits }) => {
      const answer = send(scene.seller, scene.conversationId, "waits on the conversation")
      // The batch's statement waits on the row the holder has locked.
      await batchWaits()
      // By then it holds the seller's profile: a writer of that profile would have to wait.
      const probe = await prober
        .query("SELECT id FROM seller_profiles WHERE user_id = $1 FOR UPDATE NOWAIT", [scene.seller.userId])
        .then(
          () => "locked by the prober",
          (error: { code?: string }) => error.code
        )
      expect(probe).toBe("55P03")
      await holder.query("COMMIT")
      expect((await answer).status).toBe(201)
    })
  })

  /** Two batches, one per instance, taking the sellers' reply figures in opposite orders; whether each was gathered whole. */
  const opposingBatches = async () => {
    const m = market()
    const [sellerA, sellerB] = await Promise.all([m.approvedSeller("Seller A"), m.approvedSeller("Seller B")])
    const [first, second] = await Promise.all([m.buyer("First buyer"), m.buyer("Second buyer")])
    const [a1, b1, a2, b2] = await Promise.all([
      chatScene(m, { buyer: first, seller: sellerA! }),
      chatScene(m, { buyer: first, seller: sellerB! }),
      chatScene(m, { buyer: second, seller: sellerA! }),
      chatScene(m, { buyer: second, seller: sellerB! })
    ])
    // Each buyer asks first, so each seller's answer stops a reply clock and locks that seller's figures.
    for (const scene of [a1!, b1!, a2!, b2!]) {
      expect((await send(scene.buyer, scene.conversationId, "still there?")).status).toBe(201)
    }
    // A batch holds the figures it has locked while a "slow" message of its own sleeps, in the middle of it.
    const answers = await withSlowMarkedRows(
      suite.databaseUrl()!,
      { table: "messages", column: "message_text" },
      async () => {
        // Three connections to each instance kept alive first, so the three messages of each batch reach it at
        // one moment.
        const other = beside()
        const elsewhere = new Marketplace(other, client(other), adminPhone)
        await Promise.all([
          ...[sellerA!, first!, sellerB!].map((party) => m.me(party)),
          ...[sellerB!, second!, sellerA!].map((party) => elsewhere.me(party))
        ])
        // The first batch: seller A answers, a slow message, seller B answers; the second, on the other instance
        // while the first sleeps, the other way round.
        const firstBatch = Promise.all([
          send(sellerA!, a1!.conversationId, "yes, A"),
          send(first!, a1!.conversationId, "slow"),
          send(sellerB!, b1!.conversationId, "yes, B")
        ])
        await new Promise((resolve) => setTimeout(resolve, 150))
        const secondBatch = Promise.all([
          send(sellerB!, b2!.conversationId, "yes, B", undefined, other),
          send(second!, b2!.conversationId, "slow", undefined, other),
          send(sellerA!, a2!.conversationId, "yes, A", undefined, other)
        ])
        return [...(await firstBatch), ...(await secondBatch)]
      }
    )
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201))
    // A batch gathered whole committed as one transaction.
    const transactionsOf = async (batch: ReadonlyArray<readonly [{ conversationId: string }, string]>) => {
      const found = await Promise.all(
        batch.map(async ([scene, text]) => (await stored(scene.conversationId)).find((row) => row.text === text)!.tx)
      )
      return new Set(found).size
    }
    return (
      (await transactionsOf([
        [a1!, "yes, A"],
        [a1!, "slow"],
        [b1!, "yes, B"]
      ])) === 1 &&
      (await transactionsOf([
        [b2!, "yes, B"],
        [b2!, "slow"],
        [a2!, "yes, A"]
      ])) === 1
    )
  }

  it("a message refused by a rule gets its own error; the others of its batch are stored", async () => {
    const m = market()
    const scene = await chatScene(m)
    const stranger = await m.buyer("Stranger")
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, (_, k) => send(scene.buyer, scene.conversationId, `mine ${k}`)),
      send(stranger, scene.conversationId, "let me in"),
      send(scene.buyer, crypto.randomUUID(), "nowhere"),
      ...Array.from({ length: 5 }, (_, k) => send(scene.seller, scene.conversationId, `yours ${k}`))
    ])
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(201), 403, 404, ...Array(5).fill(201)])
    expect((await stored(scene.conversationId)).map((row) => row.seq)).toEqual(seqRange(1, 10))
  })

  /** A conversation whose buyer's socket has been delivered the first part of a number the seller sent, unmasked. */
  const firstPartOfNumberDelivered = async () => {
    const scene = await chatScene(market())
    const socket = await connectAs(suite.server().wsUrl, scene.buyer.token, [scene.conversationId])
    try {
      expect((await send(scene.seller, scene.conversationId, "050 123")).status).toBe(201)
      expect((await socket.nextOfType("message")).data).toMatchObject({ message_text: "050 123", masked: false })
      return { scene, socket }
    } catch (error) {
      socket.close()
      throw error
    }
  }

  it("a number split over a sender's messages stored together is masked live, as each message's spread is read with the batch", async () => {
    const { scene, socket } = await firstPartOfNumberDelivered()
    try {
      // The rest of the number, with the buyer's messages of the same moment, so it is stored in a batch.
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, (_, k) => send(scene.buyer, scene.conversationId, `hello ${k}`)),
        send(scene.seller, scene.conversationId, "4567")
      ])
      expect(answers.map((a) => a.status)).toEqual(Array(5).fill(201))
      const frames = []
      for (let i = 0; i < 5; i++) frames.push((await socket.nextOfType("message")).data)
      expect(frames.find((frame) => frame.sender_id === scene.seller.userId)).toMatchObject({
        message_text: "***",
        masked: true
      })
      const rows = await stored(scene.conversationId)
      expect(new Set(rows.slice(1).map((row) => row.tx)).size).toBeLessThan(5)
    } finally {
      socket.close()
    }
  })

  it("a message sent alone takes the batch's statements: no read of its conversation before the lock nor of its spread after", async () => {
    const { scene, socket } = await firstPartOfNumberDelivered()
    try {
      // The answer comes after the live delivery, so the spread it is masked with has been read by then.
      const { result: answer, statements } = await Effect.runPromise(
        statementsSentBy(Effect.promise(() => send(scene.seller, scene.conversationId, "4567")))
      )
      expect(answer.status).toBe(201)
      expect((await socket.nextOfType("message")).data).toMatchObject({ message_text: "***", masked: true })
      // Its event goes in the insert's own statement, not in one of its own before the COMMIT.
      const outboxWrites = statements.filter((text) => /INSERT INTO "?outbox_events"?/.test(text))
      expect(outboxWrites).toHaveLength(1)
      expect(outboxWrites[0]).toContain("INSERT INTO messages")
      expect(statements.filter((text) => /FROM conversations WHERE id = \$1/.test(text))).toEqual([])
      expect(statements.filter((text) => text.includes("asked_seq"))).toEqual([])
      expect((await stored(scene.conversationId)).map((row) => row.seq)).toEqual([1, 2])
    } finally {
      socket.close()
    }
  })

  it("a batch's statements are the same text whatever its size, so PostgreSQL plans no longer statement for a bigger one", async () => {
    const m = market()
    const scenes = await Promise.all(Array.from({ length: 5 }, () => chatScene(m)))
    const transactionsOf = async (text: string) =>
      new Set(
        (
          await sql(
            (s) => s<{ tx: string }>`SELECT xmin::text AS tx FROM messages WHERE message_text = ${text}
              AND conversation_id IN ${s.in(scenes.map((scene) => scene.conversationId))}`
          )
        ).map((row) => row.tx)
      ).size
    const { result: gathered, statements } = await Effect.runPromise(
      statementsSentBy(
        Effect.promise(async () => {
          expect((await send(scenes[0]!.seller, scenes[0]!.conversationId, "alone")).status).toBe(201)
          // Ten at once, until some of them went in one batch (a loaded machine may answer each before the next).
          for (let attempt = 0; attempt < 3; attempt++) {
            const text = `together ${attempt}`
            const answers = await Promise.all(
              scenes.flatMap((scene) =>
                [scene.buyer, scene.seller].map((sender) => send(sender, scene.conversationId, text))
              )
            )
            expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201))
            if ((await transactionsOf(text)) < 10) return true
          }
          return false
        })
      )
    )
    expect(gathered, "in three tries, ten messages sent at once were never stored together").toBe(true)
    const textsWith = (marker: string) => new Set(statements.filter((text) => text.includes(marker)))
    expect(textsWith("INSERT INTO messages").size).toBe(1)
    expect(textsWith("FOR UPDATE OF c").size).toBe(1)
    expect(textsWith("FOR SHARE OF p").size).toBe(1)
  })

  it("one client_id sent several times at once over a socket is stored once, every send acked with it", async () => {
    const m = market()
    const scene = await chatScene(m)
    const socket = await connectAs(suite.server().wsUrl, scene.buyer.token, [scene.conversationId])
    try {
      const frame = {
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "only once",
        client_id: "same"
      }
      for (let i = 0; i < 4; i++) socket.send(frame)
      socket.send({
        type: "message",
        conversation_id: scene.conversationId,
        message_text: "another",
        client_id: "other"
      })
      const acks = []
      for (let i = 0; i < 5; i++) acks.push(await socket.nextOfType("ack"))
      const same = acks.filter((ack) => ack.client_id === "same")
      expect(same).toHaveLength(4)
      expect(new Set(same.map((ack) => ack.data.id)).size).toBe(1)
      const rows = await stored(scene.conversationId)
      expect(rows.map((row) => row.text).sort()).toEqual(["another", "only once"])
      expect(rows.map((row) => row.seq)).toEqual([1, 2])
    } finally {
      socket.close()
    }
  })
})
