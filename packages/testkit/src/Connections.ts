import type { Server } from "node:http"
import type { Socket } from "node:net"
import * as Effect from "effect/Effect"

/** How long `close()` lets the connections still open end by themselves before it cuts them. */
export const CLOSE_GRACE_MS = 2_000

/**
 * The connections of the test server's socket, WebSockets included. Closing the server waits for every one of
 * them, so a client that sent half a request and went quiet would hold `close()` until Node's headers timeout (a
 * minute): `cutLingering` gives the connections a grace and then destroys what is left, as the production server
 * does at its shutdown deadline.
 */
export const trackConnections = (server: Server) => {
  const open = new Set<Socket>()
  const onEmpty = new Set<() => void>()
  server.on("connection", (socket: Socket) => {
    open.add(socket)
    socket.once("close", () => {
      open.delete(socket)
      if (open.size === 0) for (const resolve of onEmpty) resolve()
    })
  })
  // One callback, not a race of two effects: a finalizer is uninterruptible, so the loser of a race could not
  // be interrupted and the timeout would never end it.
  const cutLingering = Effect.async<void>((resume) => {
    // Idle keep-alive connections (every fetch leaves one) have nothing to finish.
    server.closeIdleConnections()
    if (open.size === 0) return resume(Effect.void)
    const done = () => {
      clearTimeout(timer)
      onEmpty.delete(done)
      resume(Effect.void)
    }
    const timer = setTimeout(() => {
      for (const socket of open) socket.destroy()
      done()
    }, CLOSE_GRACE_MS)
    onEmpty.add(done)
  })
  return { cutLingering }
}
