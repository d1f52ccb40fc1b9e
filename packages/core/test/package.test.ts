import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packedApp, strictNode16App } from "../../../test-support/packaging.js"

/*
 * The package as an app installs it: built with tsup, packed by pnpm (which applies publishConfig), unpacked
 * into an app's node_modules beside its peer dependency (effect), then loaded from plain Node processes
 * through `import` and `require`, and compiled against by TypeScript.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const packed = packedApp(packageDir, { tempPrefix: "talab-core-package-", timeoutMs: 600_000 })
const { app, installed, node } = packed

/** The README's acceptOffer example, as written there. */
const readmeExample = () => {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8")
  const example = readme.split("## Example: a buyer accepts an offer")[1]?.match(/```ts\n([\s\S]*?)```/)?.[1]
  if (example === undefined) throw new Error("README has no acceptOffer example")
  return example
}

beforeAll(async () => {
  await packed.install()
  packed.link("effect")
})

afterAll(packed.remove)

/* One script for both module systems: a transition that moves and one that refuses, and the export names. */
const exercise = `
  const deal = {
    id: "deal-1", requestId: "request-1", offerId: "offer-1", buyerId: "buyer-1", sellerId: "seller-1",
    conversationId: "conversation-1", status: "accepted", createdAt: new Date(0), completedAt: null,
    cancelledAt: null, cancelReason: null, cancelDescription: null
  }
  const now = new Date("2025-06-01T09:00:00.000Z")
  const done = core.completeDeal(deal, now)
  const again = core.completeDeal(done.right.state, now)
  console.log(JSON.stringify({
    exports: Object.keys(core).sort(),
    moved: { status: done.right.state.status, completedAt: done.right.state.completedAt, events: done.right.events },
    owed: done.right.events.flatMap(core.notificationsFor),
    refused: { tag: again.left._tag, code: again.left.code },
    sameTag: core.SmsSender.key
  }))
`

describe("the published package", () => {
  it("ships dist and README only, exports the build for import and require, and has effect as its only peer", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
    expect(manifest.exports["."]).toEqual({
      import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
      require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" }
    })
    expect(manifest.sideEffects).toBe(false)
    expect(manifest.dependencies).toBeUndefined()
    expect(manifest.peerDependencies).toEqual({ effect: expect.stringMatching(/^\^3\./) })
    const files = packed.packedFiles()
    expect(files).toContain("package/README.md")
    expect(files).toContain("package/dist/index.cjs")
    expect(
      files.every((f) => f === "package/package.json" || f === "package/README.md" || f.startsWith("package/dist/"))
    ).toBe(true)
  })

  it("completes a deal and refuses to complete it twice, the same from ESM and from CJS", async () => {
    const esm = await node(["--input-type=module", "-e", `import * as core from "@talab/core"\n${exercise}`])
    const cjs = await node(["-e", `const core = require("@talab/core")\n${exercise}`])
    expect(esm.status, esm.stderr).toBe(0)
    expect(cjs.status, cjs.stderr).toBe(0)
    const fromEsm = JSON.parse(esm.stdout)
    expect(JSON.parse(cjs.stdout)).toEqual(fromEsm)
    expect(fromEsm.exports).toEqual(expect.arrayContaining(["acceptOffer", "completeDeal", "DomainEvent", "OfferRepo"]))
    expect(fromEsm.moved).toEqual({
      status: "completed",
      completedAt: "2025-06-01T09:00:00.000Z",
      events: [{ _tag: "DealCompleted", dealId: "deal-1", buyerId: "buyer-1", sellerId: "seller-1" }]
    })
    expect(fromEsm.owed).toEqual([{ recipientId: "buyer-1", type: "rating_prompt", data: { dealId: "deal-1" } }])
    expect(fromEsm.refused).toEqual({ tag: "DealNotActive", code: "DEAL_NOT_ACTIVE" })
    expect(fromEsm.sameTag).toBe("@talab/core/SmsSender")
  })

  it("runs the README's acceptOffer example and prints what the README says it prints", async () => {
    const example = readmeExample()
    const promised = [...example.matchAll(/console\.log\(.*\)\n\s*\/\/ (.*)\n/g)].map((m) => m[1])
    expect(promised).toHaveLength(3)
    const js = ts.transpileModule(example, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false }
    }).outputText
    writeFileSync(join(app, "example.mjs"), js)
    const ran = await node([join(app, "example.mjs")])
    expect(ran.status, ran.stderr).toBe(0)
    expect(ran.stdout.trim().split("\n")).toEqual(promised)
  })

  it("its declarations resolve for TypeScript consumers in ESM and in CJS (node16 resolution)", async () => {
    writeFileSync(join(app, "readme.mts"), readmeExample())
    writeFileSync(
      join(app, "consumer.cts"),
      `import { acceptOffer, type DomainEvent, OfferRepo, type Transition } from "@talab/core"
import { Either } from "effect"
export const tags = (t: Transition<unknown, { readonly code: string }>): ReadonlyArray<DomainEvent["_tag"]> =>
  Either.isRight(t) ? t.right.events.map((e) => e._tag) : []
export const accept = acceptOffer
export const repoKey: string = OfferRepo.key
`
    )
    const compiled = await packed.compile(strictNode16App, ["readme.mts", "consumer.cts"])
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0)
  })
})
