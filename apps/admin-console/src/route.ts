import { useEffect, useState } from "preact/hooks"

/*
 * Routes live in the hash (`/admin/#/reports?status=pending`): the server serves one page at exactly /admin/,
 * and every other path under the server's root stays what it was (docs/DECISIONS.md, "Admin console").
 */

export interface Route {
  /** The path's segments: `["reports", "<id>"]`. */
  readonly segments: ReadonlyArray<string>
  readonly query: URLSearchParams
}

const currentRoute = (): Route => {
  const hash = location.hash.replace(/^#/, "")
  const [path = "", query = ""] = hash.split("?", 2)
  return { segments: path.split("/").filter((segment) => segment !== ""), query: new URLSearchParams(query) }
}

/** The route now, updated on every hash change. */
export const useRoute = (): Route => {
  const [route, setRoute] = useState(currentRoute)
  useEffect(() => {
    const onChange = () => setRoute(currentRoute())
    addEventListener("hashchange", onChange)
    return () => removeEventListener("hashchange", onChange)
  }, [])
  return route
}

/** A link's href for a route: `href("reports", { status: "pending" })`. Empty query values are left out. */
export const href = (path: string, query: Record<string, string | number | undefined> = {}) => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(key, String(value))
  const search = params.toString()
  return `#/${path}${search === "" ? "" : `?${search}`}`
}

/** Goes to a route (a new history entry, so Back returns). */
export const navigate = (path: string, query: Record<string, string | number | undefined> = {}) => {
  location.hash = href(path, query)
}

/** A positive page number from the query, 1 when absent or nonsense. */
export const pageOf = (query: URLSearchParams) => {
  const page = Number(query.get("page"))
  return Number.isInteger(page) && page > 0 ? page : 1
}
