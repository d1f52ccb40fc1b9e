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
})
