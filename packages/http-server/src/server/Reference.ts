import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { asyncApiDocument, openApiDocument } from "@talab/contract"
import * as Effect from "effect/Effect"
import { DOCS_PATH } from "./SecurityHeaders.js"

/*
 * The API reference at /docs: Scalar reading the served /api/v1/openapi.json, so the page shows exactly what
 * the server documents (the framework's own Scalar page embeds the raw generated document instead).
 * The page has no inline script: the configuration is a data attribute and Scalar's bundle is served from
 * /docs/scalar.js, so the page's CSP (SecurityHeaders.ts) allows scripts from 'self' only. Its icon is empty
 * and inline, so a browser does not ask for /favicon.ico (a 404 in the console).
 */

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Talab API reference</title>
    <meta name="description" content="The Talab REST API: endpoints, rules, error codes and examples." />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
  </head>
  <body>
    <script
      id="api-reference"
      data-url="/api/v1/openapi.json"
      data-configuration='{"withDefaultFonts":false,"hideClientButton":false,"defaultOpenAllTags":false}'
    ></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`

/*
 * Scalar's standalone bundle as @effect/platform ships it (the version its own docs page uses), read from the
 * package's files: the module is internal, so not importable by name.
 */
const scalarBundle = Effect.cached(
  Effect.promise(async () => {
    const require = createRequire(import.meta.url)
    const platformDir = dirname(require.resolve("@effect/platform/package.json"))
    const module = await import(pathToFileURL(join(platformDir, "dist/esm/internal/httpApiScalar.js")).href)
    return module.javascript as string
  })
)

/** /docs, its script, and the two documents it and other tools read. */
export const ReferenceRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const bundle = yield* scalarBundle
    yield* router.get(DOCS_PATH, HttpServerResponse.html(page))
    yield* router.get(
      "/docs/scalar.js",
      Effect.map(bundle, (source) =>
        HttpServerResponse.text(source, {
          contentType: "text/javascript; charset=utf-8",
          headers: { "cache-control": "public, max-age=86400" }
        })
      )
    )
    yield* router.get(
      "/api/v1/openapi.json",
      Effect.suspend(() => HttpServerResponse.json(openApiDocument()))
    )
    yield* router.get(
      "/api/v1/asyncapi.json",
      Effect.suspend(() => HttpServerResponse.json(asyncApiDocument()))
    )
  })
)
