import { API_PREFIX } from "../api/paths.js"

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "")

/** The REST base (`https://host/api/v1`) of a server whose origin is `baseUrl`. */
export const restUrlOf = (baseUrl: string): string => `${withoutTrailingSlash(baseUrl)}${API_PREFIX}`

/** The WebSocket address (`wss://host/ws`) of a server whose origin is `baseUrl`. */
export const webSocketUrlOf = (baseUrl: string): string =>
  `${withoutTrailingSlash(baseUrl).replace(/^http(s?):/i, "ws$1:")}/ws`
