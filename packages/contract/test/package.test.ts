import { readFileSync, writeFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packedApp, strictNode16App } from "../../../test-support/packaging.js"
import { startTestServer, type TestServer } from "../../testkit/src/index.js"
import { openApiDocument } from "../src/index.js"

/*
 * The package as an app installs it: built with tsup (the few @talab/core values it names bundled in), packed
 * by pnpm (which applies publishConfig), unpacked into an app's node_modules beside its two peers (effect and
 * @effect/platform, nothing else), loaded from plain Node through `import` and `require`, compiled against by
 * TypeScript, and its README's client run against a server.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const packed = packedApp(packageDir, { tempPrefix: "talab-contract-package-", timeoutMs: 600_000 })
const { app, installed, node } = packed
let server: TestServer

/** The packages a built file imports, by name; Node's builtins left out. */
const importedPackages = (file: string) => {
  const code = readFileSync(file, "utf8")
  const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\(\s*|\brequire\(\s*)["']([^"'./\s][^"'\s]*)["']/g)]
  return [
    ...new Set(
      specifiers
        .map((m) => m[1]!)
        .filter((s) => !s.startsWith("node:") && !builtinModules.includes(s))
        .map((s) =>
          s
            .split("/")
            .slice(0, s.startsWith("@") ? 2 : 1)
            .join("/")
        )
    )
  ].sort()
}

/** The README's client example, as written there. */
const readmeExample = () => {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8")
  const example = readme.split("## Example: an Effect client from the contract")[1]?.match(/```ts\n([\s\S]*?)```/)?.[1]
  if (example === undefined) throw new Error("README has no client example")
  return example
}

beforeAll(async () => {
  await packed.install()
  packed.link("effect")
  packed.link("@effect/platform")
  server = await startTestServer()
})

afterAll(async () => {
  await server?.close()
  packed.remove()
})

/* One script for both module systems: the documents, the API's groups and a frame decoded and refused. */
const exercise = `
  const { Schema } = require("effect")
  const decode = Schema.decodeUnknownEither(contract.ClientFrame)
  console.log(JSON.stringify({
    paths: Object.keys(contract.openApiDocument().paths).length,
    channels: Object.keys(contract.asyncApiDocument().channels),
    groups: Object.keys(contract.Api.groups).sort(),
    frame: decode({ type: "ping" })._tag,
    badFrame: decode({ type: "shout" })._tag,
    notFound: contract.errorMessages.NOT_FOUND.en
  }))
`

describe("the published package", () => {
  it("ships dist and README only, for import and require, with effect and @effect/platform as its only peers", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
    expect(manifest.exports["."]).toEqual({
      import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
      require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" }
    })
    expect(manifest.dependencies).toBeUndefined()
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["@effect/platform", "effect"])
    const files = packed.packedFiles()
    expect(files).toContain("package/README.md")
    expect(
      files.every((f) => f === "package/package.json" || f === "package/README.md" || f.startsWith("package/dist/"))
    ).toBe(true)
    for (const built of ["index.js", "index.cjs", "index.d.ts", "index.d.cts"]) {
      expect(importedPackages(join(installed, "dist", built)), built).toEqual(["@effect/platform", "effect"])
    }
  })

  it("loads the same from ESM and from CJS: the documents, the groups and the frames", async () => {
    const esm = await node([
      "--input-type=module",
      "-e",
      `import * as contract from "@talab/contract"\nimport { createRequire } from "node:module"\nconst require = createRequire(import.meta.url)\n${exercise}`
    ])
    const cjs = await node(["-e", `const contract = require("@talab/contract")\n${exercise}`])
    expect(esm.status, esm.stderr).toBe(0)
    expect(cjs.status, cjs.stderr).toBe(0)
    const fromEsm = JSON.parse(esm.stdout)
    expect(JSON.parse(cjs.stdout)).toEqual(fromEsm)
    expect(fromEsm.paths).toBe(Object.keys(openApiDocument().paths).length)
    expect(fromEsm.channels).toEqual(expect.arrayContaining(["chat"]))
    expect(fromEsm.groups).toEqual(expect.arrayContaining(["auth", "requests", "offers", "chat"]))
    expect(fromEsm).toMatchObject({ frame: "Right", badFrame: "Left", notFound: expect.any(String) })
  })

  it("runs the README's client against a server and prints what the README says it prints", async () => {
    const example = readmeExample()
    const promised = [...example.matchAll(/console\.log\(.*\)\n\s*\/\/ (.*)\n/g)].map((m) => m[1])
    expect(promised).toHaveLength(2)
    const js = ts.transpileModule(example, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false }
    }).outputText
    writeFileSync(join(app, "example.mjs"), js)
    const ran = await node([join(app, "example.mjs")], { TALAB_URL: server.baseUrl })
    expect(ran.status, ran.stderr).toBe(0)
    expect(ran.stdout.trim().split("\n")).toEqual(promised)
  })

  it("its declarations type the README's client for TypeScript consumers in ESM and CJS (node16 resolution)", async () => {
    writeFileSync(
      join(app, "readme.mts"),
      `declare const process: { env: Record<string, string | undefined> }\n${readmeExample()}`
    )
    writeFileSync(
      join(app, "consumer.cts"),
      `import { Api, type ServerFrame, UserView } from "@talab/contract"
export const frameTypes = (frames: ReadonlyArray<ServerFrame>): ReadonlyArray<string> => frames.map((f) => f.type)
export const api = Api
export const userFields: ReadonlyArray<string> = Object.keys(UserView.fields)
`
    )
    const compiled = await packed.compile(strictNode16App, ["readme.mts", "consumer.cts"])
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0)
  })
})
