import { readdirSync, readFileSync } from "node:fs"
import { extname } from "node:path"
import { fileURLToPath } from "node:url"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { ADMIN_CONSOLE_ASSETS, ADMIN_CONSOLE_PATH } from "../http/RequestPath.js"
import { errorEnvelopeResponse } from "./pipeline/ErrorEnvelope.js"

/*
 * The admins' console (apps/admin-console): one page at exactly /admin/ and its files at /admin/assets/*, read
 * once at start from the console's build. The API stays under /api/v1 (its admin routes are /api/v1/admin/*),
 * so no API path is shadowed; the console routes itself in the URL's hash (docs/DECISIONS.md, "Admin console").
 * The page's content policy is SecurityHeaders.ts's.
 */

interface ConsoleFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2"
}

/*
 * Where the build is: beside the server's bundle (apps/server's tsup config builds the console into
 * dist/admin-console), or the console package's own dist/ when the server runs from the workspace's sources
 * (tests, `pnpm --filter @talab/server dev`; the tests' global setup builds it).
 */
const candidates = [
  new URL("./admin-console/", import.meta.url),
  new URL("../../../../apps/admin-console/dist/", import.meta.url)
]

/** The first candidate that holds a whole build (the page and its assets), or undefined when none does. */
const readBuild = () => {
  for (const folder of candidates) {
    try {
      const page = readFileSync(fileURLToPath(new URL("index.html", folder)))
      const assets = new Map<string, ConsoleFile>()
      for (const name of readdirSync(fileURLToPath(new URL("assets/", folder)))) {
        const contentType = CONTENT_TYPES[extname(name)]
        if (contentType !== undefined)
          assets.set(name, { bytes: readFileSync(fileURLToPath(new URL(`assets/${name}`, folder))), contentType })
      }
      return { page, assets, folder: fileURLToPath(folder) }
    } catch {
      // Not built there: the next candidate.
    }
  }
  return undefined
}

/**
 * `/admin/` (the page), `/admin/assets/:name` (its files) and `/admin` (a redirect to the page). Without a build
 * the three answer 404 like any unknown path, and the start logs where the build was looked for.
 */
export const AdminConsoleRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const build = readBuild()
    if (build === undefined) {
      yield* Effect.logDebug("admin console not built; /admin/ answers 404").pipe(
        Effect.annotateLogs("looked_in", candidates.map((folder) => fileURLToPath(folder)).join(", "))
      )
      return
    }
    const page = HttpServerResponse.uint8Array(build.page, {
      contentType: "text/html; charset=utf-8",
      // The page names its assets without a version: a browser asks again (a 304 by its ETag) on every visit.
      headers: { "cache-control": "no-cache" }
    })
    yield* router.get(ADMIN_CONSOLE_PATH, Effect.succeed(page))
    yield* router.get(
      "/admin",
      Effect.succeed(HttpServerResponse.empty({ status: 308, headers: { location: ADMIN_CONSOLE_PATH } }))
    )
    yield* router.get(
      `${ADMIN_CONSOLE_ASSETS}:name`,
      Effect.flatMap(HttpRouter.params, (params) => {
        const file = build.assets.get(params.name ?? "")
        return file === undefined
          ? errorEnvelopeResponse("NOT_FOUND", 404)
          : Effect.succeed(
              HttpServerResponse.uint8Array(file.bytes, {
                contentType: file.contentType,
                headers: { "cache-control": "no-cache" }
              })
            )
      })
    )
  })
)
