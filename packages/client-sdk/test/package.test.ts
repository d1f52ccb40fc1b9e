import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packedApp } from "../../../test-support/packaging.js"
import { newPhone, useTestServer } from "./support.js"

/*
 * The package as an app installs it: built with tsup, packed by pnpm (which applies publishConfig), unpacked
 * into an app's node_modules beside its only dependency (openapi-fetch) and the optional peer (ws), then
 * loaded from plain Node processes through `import` and `require`.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const packed = packedApp(packageDir, { tempPrefix: "talab-sdk-package-", timeoutMs: 600_000 })
const { app, installed, node: run } = packed

beforeAll(async () => {
  await packed.install()
  for (const dependency of ["openapi-fetch", "ws"]) packed.link(dependency)
})

afterAll(packed.remove)

describe("the published package", () => {
  const server = useTestServer()

  it("ships dist and README only, exports the build for import and require, depends on openapi-fetch alone", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
    for (const [subpath, file] of [
      [".", "index"],
      ["./errors", "errors"],
      ["./types", "types"],
      ["./rest", "rest"],
      ["./realtime", "realtime"]
    ]) {
      expect(manifest.exports[subpath!]).toEqual({
        import: { types: `./dist/${file}.d.ts`, default: `./dist/${file}.js` },
        require: { types: `./dist/${file}.d.cts`, default: `./dist/${file}.cjs` }
      })
    }
    expect(Object.keys(manifest.dependencies)).toEqual(["openapi-fetch"])
    expect(manifest.peerDependenciesMeta.ws.optional).toBe(true)
    const files = packed.packedFiles()
    expect(
      files.every((f) => f === "package/package.json" || f === "package/README.md" || f.startsWith("package/dist/"))
    ).toBe(true)
  })

  /** The code an ESM entry loads: the entry file and the chunks it imports, recursively. */
  const loadedBy = (file: string, seen = new Set<string>()): string => {
    if (seen.has(file)) return ""
    seen.add(file)
    const code = readFileSync(join(installed, "dist", file), "utf8")
    const chunks = [...code.matchAll(/(?:from|import)\s*"\.\/([^"]+)"/g)].map((match) => match[1]!)
    return [code, ...chunks.map((chunk) => loadedBy(chunk, seen))].join("\n")
  }

  it("keeps the small entries small: errors without the HTTP client, rest without the realtime client", () => {
    const errors = loadedBy("errors.js")
    expect(errors).toMatch(/\bTalabApiError = class\b/)
    expect(errors).not.toContain("openapi-fetch")
    const rest = loadedBy("rest.js")
    expect(rest).toContain("openapi-fetch")
    expect(rest).not.toMatch(/\bRealtimeClient\b/)
    expect(rest).not.toMatch(/["']ws["']/)
    expect(loadedBy("types.js")).not.toMatch(/\b(class|function)\b|=>/)
    expect(loadedBy("index.js")).toMatch(/\bRealtimeClient = class\b/)
  })

  it("the subpaths load from ESM and CJS", async () => {
    const esm = await run([
      "--input-type=module",
      "-e",
      `const errors = await import("@talab/client-sdk/errors"); const rest = await import("@talab/client-sdk/rest")
      console.log(JSON.stringify([typeof errors.isTalabApiError, typeof rest.createTalabRestClient, "RealtimeClient" in rest]))`
    ])
    expect(esm.status, esm.stderr).toBe(0)
    expect(JSON.parse(esm.stdout)).toEqual(["function", "function", false])
    const cjs = await run(["-e", 'console.log(typeof require("@talab/client-sdk/realtime").RealtimeClient)'])
    expect(cjs.status, cjs.stderr).toBe(0)
    expect(cjs.stdout.trim()).toBe("function")
  })

  it("has no Node-only API in the entries (browsers, React Native): no node: imports, Buffer or process", () => {
    const built = packed.packedFiles().filter((f) => /^package\/dist\/.*\.c?js$/.test(f))
    expect(built.length).toBeGreaterThan(5)
    for (const file of built.map((f) => f.replace("package/dist/", ""))) {
      const code = readFileSync(join(installed, "dist", file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")
      expect(code).not.toMatch(/["']node:/)
      expect(code).not.toMatch(/\bBuffer\b/)
      expect(code).not.toMatch(/\bprocess\./)
      expect(code).not.toMatch(/require\(["'](fs|path|http|https|net|crypto|events|stream)["']\)/)
    }
  })

  it("imports from ESM and requires from CJS with the same exports", async () => {
    const esm = await run([
      "--input-type=module",
      "-e",
      'const sdk = await import("@talab/client-sdk"); console.log(JSON.stringify(Object.keys(sdk).sort()))'
    ])
    const cjs = await run(["-e", 'console.log(JSON.stringify(Object.keys(require("@talab/client-sdk")).sort()))'])
    expect(esm.status, esm.stderr).toBe(0)
    expect(cjs.status, cjs.stderr).toBe(0)
    const esmExports = JSON.parse(esm.stdout)
    expect(esmExports).toEqual(JSON.parse(cjs.stdout))
    expect(esmExports).toEqual(
      expect.arrayContaining([
        "createTalabClient",
        "TalabApiError",
        "TalabNetworkError",
        "RealtimeClient",
        "memoryTokenStore",
        "webStorageTokenStore"
      ])
    )
  })

  it.each([
    ["ESM", ["--input-type=module", "-e"], 'import { createTalabClient } from "@talab/client-sdk"'],
    ["CJS", ["-e"], 'const { createTalabClient } = require("@talab/client-sdk")']
  ])("signs in and connects the realtime client from %s in Node 20 (ws loaded lazily)", async (_, flags, load) => {
    const phone = newPhone()
    // The test reads the code from the server's recorder between the two child processes.
    const request = await run(
      [
        ...flags,
        `${load}
      createTalabClient({ baseUrl: process.env.BASE_URL }).auth.requestOtp(process.env.PHONE)
        .then(() => console.log("sent"), (error) => { console.error(error); process.exit(1) })`
      ],
      {
        BASE_URL: server().baseUrl,
        PHONE: phone
      }
    )
    expect(request.status, request.stderr).toBe(0)
    const signIn = await run(
      [
        ...flags,
        `${load}
      ;(async () => {
        const talab = createTalabClient({ baseUrl: process.env.BASE_URL, language: "en" })
        const { user } = await talab.auth.signIn({ phoneNumber: process.env.PHONE, otpCode: process.env.CODE })
        const live = talab.realtime({ heartbeatIntervalMs: 0 })
        await live.connect()
        const failure = await live.subscribe("00000000-0000-4000-8000-000000000000").catch((e) => e.code)
        live.dispose()
        console.log(JSON.stringify({ same: live.userId === user.id, failure }))
      })().catch((error) => { console.error(error); process.exit(1) })`
      ],
      {
        BASE_URL: server().baseUrl,
        PHONE: phone,
        CODE: server().sms.lastCode(phone) ?? ""
      }
    )
    expect(signIn.status, signIn.stderr).toBe(0)
    expect(JSON.parse(signIn.stdout)).toEqual({ same: true, failure: "NOT_FOUND" })
  })

  it("its declarations resolve for TypeScript consumers in ESM and in CJS (node16 resolution)", async () => {
    const consumer = `import { createTalabClient, type TalabApiError } from "@talab/client-sdk"
const talab = createTalabClient({ baseUrl: "https://api.talab.sa" })
export const me = talab.GET("/users/me").then((body) => body.data.phone_number satisfies string)
export const isApiError = (error: TalabApiError) => error.code satisfies string
`
    writeFileSync(join(app, "consumer.mts"), consumer)
    writeFileSync(join(app, "consumer.cts"), consumer)
    const compiled = await packed.compile(
      { module: "node16", moduleResolution: "node16", strict: true, noEmit: true, lib: ["ES2022", "DOM"], types: [] },
      ["consumer.mts", "consumer.cts"]
    )
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0)
  })
})
