import { createConnection, createServer, type Server, type Socket } from "node:net"

/**
 * A loopback TCP proxy in front of the test server, to cut connections the way a network does: drop
 * every open connection, refuse new ones for a while, or swallow what the server sends.
 */
export interface FlakyProxy {
  /** ws://127.0.0.1:<port>/ws through the proxy. */
  readonly wsUrl: string
  /** Connections accepted so far. */
  readonly accepted: () => number
  /** Cuts every open connection (both ends see a reset). */
  readonly dropAll: () => void
  /** New connections are cut as soon as they arrive, until accept(). */
  readonly refuse: () => void
  readonly accept: () => void
  /** What the server sends is dropped (the client hears nothing), until deliver(). */
  readonly swallowReplies: () => void
  readonly deliver: () => void
  readonly close: () => Promise<void>
}

export const startFlakyProxy = async (target: {
  readonly host: string
  readonly port: number
}): Promise<FlakyProxy> => {
  const open = new Set<Socket>()
  let refusing = false
  let swallowing = false
  let accepted = 0
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy()
      return
    }
    accepted += 1
    const upstream = createConnection(target)
    open.add(client)
    open.add(upstream)
    client.on("data", (chunk) => upstream.write(chunk))
    upstream.on("data", (chunk) => {
      if (!swallowing) client.write(chunk)
    })
    const cut = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on("close", cut)
    upstream.on("close", cut)
    client.on("error", cut)
    upstream.on("error", cut)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    accepted: () => accepted,
    dropAll: () => {
      for (const socket of open) socket.resetAndDestroy()
      open.clear()
    },
    refuse: () => {
      refusing = true
    },
    accept: () => {
      refusing = false
    },
    swallowReplies: () => {
      swallowing = true
    },
    deliver: () => {
      swallowing = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      })
  }
}
