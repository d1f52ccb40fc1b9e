import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packedApp, step, strictNode16App, workspaceBin } from "../../../test-support/packaging.js"

/*
 * The package as an app installs it: built with tsup (the private @talab/http-server bundled in), packed by
 * pnpm (which applies publishConfig), unpacked into an app's node_modules outside the workspace beside
 * @talab/core as published (built into a temporary directory) and the third-party dependencies the
 * workspace already installed (linked, as a registry install would place them), then run by plain Node
 * through `import` and `require`, and compiled against by TypeScript.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const coreDir = join(packageDir, "..", "core")
const serverDir = join(packageDir, "..", "http-server")
const packed = packedApp(packageDir, { tempPrefix: "talab-testkit-package-", timeoutMs: 600_000 })
const { app, modules, installed } = packed

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"))

/** The packages a built file imports: bare specifiers reduced to package names, Node's builtins left out. */
const importedPackages = (file: string) => {
  const code = readFileSync(file, "utf8")
  const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\(\s*|\brequire\(\s*)["']([^"'./\s][^"'\s]*)["']/g)].map(
    (m) => m[1]!
  )
  const names = specifiers
    .filter((s) => !s.startsWith("node:") && !builtinModules.includes(s.split("/")[0]!))
    .map((s) =>
      s
        .split("/")
        .slice(0, s.startsWith("@") ? 2 : 1)
        .join("/")
    )
  return [...new Set(names)].sort()
}

/** Where the workspace installed a third-party package (testkit's own links first, then the server's). */
const installedCopy = (name: string) => {
  for (const dir of [packageDir, serverDir]) {
    const candidate = join(dir, "node_modules", name)
    if (existsSync(candidate)) return realpathSync(candidate)
  }
  throw new Error(`${name} is not installed in the workspace`)
}

beforeAll(async () => {
  await packed.install()

  // @talab/core as published: its own build (into a directory of this test, not packages/core/dist, which
  // core's packaging test writes), under its manifest with publishConfig applied as pnpm publish does.
  const core = join(modules, "@talab", "core")
  await step(workspaceBin("tsup"), ["--out-dir", join(core, "dist")], coreDir)
  const {
    publishConfig,
    scripts: _scripts,
    devDependencies: _dev,
    ...coreManifest
  } = readJson(join(coreDir, "package.json"))
  writeFileSync(join(core, "package.json"), JSON.stringify({ ...coreManifest, ...publishConfig }, null, 2))

  for (const name of Object.keys(readJson(join(installed, "package.json")).dependencies)) {
    if (!name.startsWith("@talab/")) packed.link(name, installedCopy(name))
  }
})

afterAll(packed.remove)

/* A plain Node script, as an app team writes one: start, sign in with the texted code, ask who we are, close. */
const signIn = `
  const server = await startTestServer()
  const post = (path, body) =>
    fetch(server.apiUrl + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      .then((response) => response.json())
  const phone = newPhoneNumber()
  await post("/auth/request-otp", { phone_number: phone })
  const code = server.sms.lastCode(phone)
  const verified = await post("/auth/verify-otp", { phone_number: phone, otp_code: code })
  const me = await fetch(server.apiUrl + "/users/me", { headers: { authorization: "Bearer " + verified.data.tokens.access_token } })
  const body = await me.json()
  // An avatar: sharp is loaded from the consumer's node_modules at the first image.
  const form = new FormData()
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64")
  form.append("avatar", new Blob([png], { type: "image/png" }), "a.png")
  const avatar = await fetch(server.apiUrl + "/users/me/avatar", { method: "POST", headers: { authorization: "Bearer " + verified.data.tokens.access_token }, body: form })
  await server.close()
  console.log(JSON.stringify({ code, status: me.status, same: body.data.phone_number === phone, avatar: avatar.status, baseUrl: server.baseUrl }))
  // No process.exit: the process must end by itself once the server is closed.
`

describe("the published package", () => {
  it("ships dist and README only, and depends on exactly the packages its build imports, none of them private", () => {
    const manifest = readJson(join(installed, "package.json"))
    expect(manifest.exports["."]).toEqual({
      import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
      require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" }
    })
    // An optional peer (the AWS SDK, loaded only for FILE_STORE=s3) is imported without being a dependency.
    const dependencies = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies ?? {})].sort()
    expect(importedPackages(join(installed, "dist", "index.js"))).toEqual(dependencies)
    expect(importedPackages(join(installed, "dist", "index.cjs"))).toEqual(dependencies)
    expect(dependencies).not.toContain("@talab/http-server")
    expect(dependencies).toEqual(expect.arrayContaining(["@talab/core", "effect", "sharp", "@electric-sql/pglite"]))
    expect(manifest.dependencies["@talab/core"]).toMatch(/^\d+\.\d+\.\d+/)
    const files = packed.packedFiles()
    expect(files).toContain("package/README.md")
    expect(
      files.every((f) => f === "package/package.json" || f === "package/README.md" || f.startsWith("package/dist/"))
    ).toBe(true)
  })

  it("bundles the server but leaves native sharp and its other dependencies to node_modules", () => {
    for (const file of ["index.js", "index.cjs", "index.d.ts", "index.d.cts"]) {
      const code = readFileSync(join(installed, "dist", file), "utf8")
      expect(code, file).not.toMatch(/(from\s*|require\(\s*|import\(\s*)["']@talab\/http-server/)
    }
    const esm = readFileSync(join(installed, "dist", "index.js"), "utf8")
    // Loaded at the first avatar (images/Sharp.ts), from the consumer's node_modules.
    expect(esm).toMatch(/import\(\s*"sharp"\s*\)/)
    expect(esm).toContain("MigratedDatabaseLayer") // the server's code is in the bundle
    expect(esm).not.toMatch(/@img\/sharp-|sharp-linux|libvips/) // sharp's loader and binaries are not
    expect(readFileSync(join(installed, "dist", "index.d.ts"), "utf8")).toMatch(/interface AppSettings/)
  })

  it.each([
    [
      "ESM",
      ["--input-type=module", "-e", `import { newPhoneNumber, startTestServer } from "@talab/testkit"\n${signIn}`]
    ],
    [
      "CJS",
      ["-e", `const { newPhoneNumber, startTestServer } = require("@talab/testkit")\n;(async () => {${signIn}})()`]
    ]
  ])("starts a server from %s, signs in over HTTP with the recorded SMS code, and closes it", async (_, args) => {
    const started = await packed.node(args)
    expect(started.status, started.stderr).toBe(0)
    const outcome = JSON.parse(started.stdout.trim().split("\n").at(-1)!)
    expect(outcome).toEqual({
      code: expect.stringMatching(/^\d{6}$/),
      status: 200,
      same: true,
      avatar: 200,
      baseUrl: expect.any(String)
    })
    expect(outcome.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it("its declarations resolve for TypeScript consumers in ESM and in CJS (node16), server settings included", async () => {
    const consumer = `import { newPhoneNumber, startTestServer, type TestServer, type TestServerOptions } from "@talab/testkit"
export const options: TestServerOptions = {
  settings: { adminPhoneNumbers: [newPhoneNumber()], rateLimits: { authPerMinute: 10, otpPer10Minutes: 3, apiPerMinute: 5, wsMessagesPerMinute: 50, wsHandshakesPerMinute: 60 } }
}
export const start = (): Promise<TestServer> => startTestServer(options)
export const codeOf = (server: TestServer, phone: string): string | undefined => server.sms.lastCode(phone)
export const later = (server: TestServer) => server.clock.advance("25 hours")
// @ts-expect-error not a setting of the server
export const wrong: TestServerOptions = { settings: { adminPhones: [] } }
`
    writeFileSync(join(app, "consumer.mts"), consumer)
    writeFileSync(join(app, "consumer.cts"), consumer)
    const compiled = await packed.compile(strictNode16App, ["consumer.mts", "consumer.cts"])
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0)
  })
})
