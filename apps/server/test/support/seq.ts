import { expect } from "vitest"
import type { WsClient } from "./ws-client.js"

/** 1..n, or from..to. */
export const seqRange = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The seqs of the `message` frames a socket received for a conversation, in arrival order. */
export const deliveredSeqs = (socket: WsClient, conversationId: string): Array<number> =>
  socket
    .all("message")
    .filter((frame) => frame.data.conversation_id === conversationId)
    .map((frame) => frame.data.seq)

/** Subscribes with `since_seq` and answers the `subscribed` (or error) frame. */
export const subscribeSince = (socket: WsClient, conversationId: string, sinceSeq: number) => {
  const channel = `conversation.${conversationId}`
  socket.send({ type: "subscribe", channel, since_seq: sinceSeq })
  return socket.next((frame) => (frame.type === "subscribed" || frame.type === "error") && frame.channel === channel)
}

/** Waits until the socket has received the message of `seq` in the conversation. */
export const untilSeq = (socket: WsClient, conversationId: string, seq: number, timeoutMs = 10_000) =>
  socket.next(
    (frame) => frame.type === "message" && frame.data.conversation_id === conversationId && frame.data.seq === seq,
    timeoutMs
  )

/**
 * Writes messages with every sender at once until the conversation holds `total`; `written()` is how many it
 * holds so far (starting from `stored`).
 */
export const writeConcurrently = (
  stored: number,
  total: number,
  senders: ReadonlyArray<(text: string) => Promise<unknown>>
) => {
  let written = stored
  const sender = async (send: (text: string) => Promise<unknown>) => {
    while (written < total) {
      written += 1
      await send(`message ${written}`)
    }
  }
  return { done: Promise.all(senders.map(sender)), written: () => written }
}

/** Sends a message frame and waits for its ack. */
export const sendOverSocket = (socket: WsClient, conversationId: string, text: string) => {
  const clientId = crypto.randomUUID()
  socket.send({ type: "message", conversation_id: conversationId, message_text: text, client_id: clientId })
  return socket.next((frame) => frame.type === "ack" && frame.client_id === clientId).then((ack) => ack.data)
}

/**
 * The frames of a socket that resumed from `since`, once it has everything up to `total`: the seqs of every
 * message frame (each exactly once, any live order) and those before `caught_up` (the catch-up, in order).
 */
const resumedSeqs = async (socket: WsClient, conversationId: string, total: number) => {
  await untilSeq(socket, conversationId, total)
  await socket.barrier()
  const caughtUpAt = socket.frames.findIndex((frame) => frame.type === "caught_up")
  return {
    all: deliveredSeqs(socket, conversationId),
    caughtUp: socket.frames[caughtUpAt],
    catchUp: socket.frames
      .slice(0, caughtUpAt)
      .filter((frame) => frame.type === "message")
      .map((frame) => frame.data.seq as number)
  }
}

/**
 * Every resumed socket got each message after its `since` exactly once (no gap, no duplicate), and its
 * catch-up, the messages before `caught_up`, in order.
 */
export const expectResumedWithoutGap = async (
  resumed: ReadonlyArray<{ readonly socket: WsClient; readonly since: number }>,
  conversationId: string,
  total: number
) => {
  for (const { socket, since } of resumed) {
    const { all, catchUp, caughtUp } = await resumedSeqs(socket, conversationId, total)
    expect(
      [...all].sort((x, y) => x - y),
      `since ${since}`
    ).toEqual(seqRange(since + 1, total))
    expect(catchUp).toEqual(seqRange(since + 1, caughtUp.last_seq))
  }
}
