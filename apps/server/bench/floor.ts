/*
 * The floor every marketplace figure is compared with, in the same run: a bare `node:http` + `pg` server that
 * answers `GET /api/v1/requests/{id}` with what Talab does for it at the least — the bearer token checked with
 * jose (HS256, key imported once), the same SQL, the same envelope and body — and nothing else (no framework,
 * no session look-up, no log line, no rate limit). Absolute figures move by 30% between runs on a shared
 * machine; a ratio to this floor taken in one run is what to compare.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { jwtVerify } from "jose"
import pg from "pg"

export interface FloorServer {
  readonly apiUrl: string
  readonly close: () => Promise<void>
}

/** The detail read both floors send. */
export const DETAIL = `SELECT r.*, u.name AS buyer_name FROM buy_requests r JOIN users u ON u.id = r.buyer_id WHERE r.id = $1`
const REQUEST_PATH = /^\/api\/v1\/requests\/([0-9a-f-]{36})$/

/** The body of a detail row (its dates are written as ISO strings by JSON.stringify or by a schema). */
export const detailOf = (row: Record<string, any>) => ({
  id: row.id,
  buyer: { id: row.buyer_id, name: row.buyer_name },
  category: row.category,
  product_brand: row.product_brand,
  product_model: row.product_model,
  condition_pref: row.condition_pref,
  budget_min: Number(row.budget_min),
  budget_max: Number(row.budget_max),
  location_district: row.location_district,
  location_city: row.location_city,
  notes: row.notes,
  status: row.status,
  offer_count: row.offer_count,
  created_at: row.created_at as Date,
  closed_at: row.closed_at as Date | null
})

const send = (response: import("node:http").ServerResponse, status: number, body: unknown) => {
  const json = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) })
  response.end(json)
}

const failure = (code: string) => ({ success: false, error: { code, message: code, details: {} } })

/** Starts the floor on `databaseUrl`, checking tokens signed with `jwtSecret`, with a pool of `connections`. */
export const startFloorServer = async (
  databaseUrl: string,
  jwtSecret: string,
  connections = 10
): Promise<FloorServer> => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections })
  const key = new TextEncoder().encode(jwtSecret)
  const server: Server = createServer(async (request, response) => {
    try {
      const id = REQUEST_PATH.exec(request.url ?? "")?.[1]
      if (request.method !== "GET" || id === undefined) return send(response, 404, failure("NOT_FOUND"))
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
      if (token === undefined) return send(response, 401, failure("UNAUTHORIZED"))
      const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] }).catch(() => ({ payload: null }))
      if (payload === null || payload.typ !== "access") return send(response, 401, failure("UNAUTHORIZED"))
      const { rows } = await pool.query(DETAIL, [id])
      if (rows.length === 0) return send(response, 404, failure("NOT_FOUND"))
      send(response, 200, { success: true, data: detailOf(rows[0]) })
    } catch {
      send(response, 500, failure("INTERNAL_ERROR"))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    apiUrl: `http://127.0.0.1:${port}/api/v1`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await pool.end()
    }
  }
}
