/** The part of the WebSocket API the realtime client uses: the browser's, React Native's and `ws`'s. */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: any) => void) | null
  onmessage: ((event: { readonly data: unknown }) => void) | null
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null
  onerror: ((event: any) => void) | null
}

/** A WebSocket class: `globalThis.WebSocket`, or `WebSocket` of the `ws` package in Node. */
export type WebSocketConstructor = new (url: string) => WebSocketLike

/** `WebSocket.OPEN` */
export const OPEN = 1

let nodeWebSocket: Promise<WebSocketConstructor> | undefined

/*
 * The specifier is a variable so that bundlers (Metro, webpack, Vite) do not try to bundle `ws`: it is
 * loaded only where no global WebSocket exists, which means Node before 22.
 */
const wsModuleName = "ws"

/** The platform's WebSocket, or the `ws` package (an optional peer dependency) where there is none. */
export const resolveWebSocket = (): Promise<WebSocketConstructor> => {
  const platformWebSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  if (typeof platformWebSocket === "function") return Promise.resolve(platformWebSocket)
  nodeWebSocket ??= import(/* webpackIgnore: true */ /* @vite-ignore */ wsModuleName).then(
    (module: { WebSocket?: WebSocketConstructor; default?: WebSocketConstructor }) => {
      const WebSocket = module.WebSocket ?? module.default
      if (typeof WebSocket !== "function") throw new Error("The `ws` package did not export WebSocket")
      return WebSocket
    },
    (cause: unknown) => {
      nodeWebSocket = undefined
      throw new Error(
        "This platform has no global WebSocket: install the `ws` package (npm install ws) or pass `WebSocket` in the realtime options.",
        { cause }
      )
    }
  )
  return nodeWebSocket
}
