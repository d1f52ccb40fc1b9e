import { describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { Connection, MAX_BUFFERED_BYTES } from "../src/realtime/Connection.js"

/** A stand-in for a `ws` socket: what was sent, whether it was pinged or cut off, and a settable backlog. */
const fakeSocket = () => {
  const listeners = new Map<string, () => void>()
  const socket = {
    readyState: WebSocket.OPEN as number,
    bufferedAmount: 0,
    sent: [] as Array<string>,
    pings: 0,
    terminated: false,
    send(text: string) {
      this.sent.push(text)
    },
    ping() {
      this.pings += 1
    },
    terminate() {
      this.terminated = true
      this.readyState = WebSocket.CLOSED
    },
    close() {
      this.readyState = WebSocket.CLOSING
    },
    on(event: string, listener: () => void) {
      listeners.set(event, listener)
    },
    emit(event: string) {
      listeners.get(event)?.()
    }
  }
  return socket
}

const connectionOn = (socket: ReturnType<typeof fakeSocket>) =>
  new Connection(socket as unknown as WebSocket, 0, undefined)

describe("Connection", () => {
  it("sends while the backlog stays under the bound, and cuts off a reader that lets it grow past it", () => {
    const fast = fakeSocket()
    const slow = fakeSocket()
    const connections = [connectionOn(fast), connectionOn(slow)]
    const frame = JSON.stringify({ type: "pong" })

    slow.bufferedAmount = MAX_BUFFERED_BYTES - Buffer.byteLength(frame)
    for (const connection of connections) connection.sendText(frame)
    expect(slow.sent).toEqual([frame])
    expect(slow.terminated).toBe(false)

    slow.bufferedAmount = MAX_BUFFERED_BYTES - Buffer.byteLength(frame) + 1
    fast.bufferedAmount = 10_000
    for (const connection of connections) connection.sendText(frame)
    expect(slow.terminated).toBe(true)
    expect(slow.sent).toEqual([frame])
    expect(fast.sent).toEqual([frame, frame])

    for (const connection of connections) connection.sendText(frame)
    expect(slow.sent).toHaveLength(1) // a closed socket is not written to
    expect(fast.sent).toHaveLength(3)
  })

  it("pings on each heartbeat and cuts off a socket that did not answer the previous ping", () => {
    const answering = fakeSocket()
    const silent = fakeSocket()
    const a = connectionOn(answering)
    const s = connectionOn(silent)
    a.heartbeat()
    s.heartbeat()
    expect([answering.pings, silent.pings]).toEqual([1, 1])
    answering.emit("pong")
    a.heartbeat()
    s.heartbeat()
    expect(answering.pings).toBe(2)
    expect(answering.terminated).toBe(false)
    expect(silent.terminated).toBe(true)
  })

  it("counts any frame from the client as a sign of life", () => {
    const socket = fakeSocket()
    const connection = connectionOn(socket)
    connection.heartbeat()
    connection.markAlive()
    connection.heartbeat()
    expect(socket.terminated).toBe(false)
    expect(socket.pings).toBe(2)
  })

  it("holds live message frames during a catch-up, then sends those after it in seq order and drops the rest for good", () => {
    const socket = fakeSocket()
    const connection = connectionOn(socket)
    const frame = (seq: number) => JSON.stringify({ type: "message", data: { seq } })
    const deliver = (conversationId: string, seq: number) =>
      connection.deliverMessage(conversationId, () => seq, frame(seq))

    deliver("c", 3) // no catch-up: straight through
    connection.holdLive("c")
    deliver("c", 6)
    deliver("c", 5) // stored before the catch-up read, published after it: a duplicate
    deliver("c", 7)
    deliver("other", 1) // another conversation is not held
    expect(socket.sent).toEqual([frame(3), frame(1)])

    connection.releaseLive("c", 5) // the catch-up sent 4 and 5
    expect(socket.sent).toEqual([frame(3), frame(1), frame(6), frame(7)])
    deliver("c", 5) // a late delivery of one the catch-up sent
    deliver("c", 8)
    expect(socket.sent).toEqual([frame(3), frame(1), frame(6), frame(7), frame(8)])

    connection.forgetCatchUp("c") // unsubscribed: a new subscription starts afresh
    deliver("c", 2)
    expect(socket.sent.at(-1)).toBe(frame(2))
  })
})
