import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const work = mkdtempSync(join(tmpdir(), "talab-sdk-readme-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The app's own functions the README's example calls. */
const appStubs = `
declare function showSignInScreen(): void
declare function appendToChat(message: unknown): void
declare function setConnectionBanner(state: string): void
declare const pushToken: string
export {}
`

describe("README", () => {
  it("its whole-deal example compiles against the SDK's types", async () => {
    const readme = readFileSync(join(packageDir, "README.md"), "utf8")
    const example = readme.split("## A whole deal")[1]?.match(/```ts\n([\s\S]*?)```/)?.[1]
    expect(example).toContain("live.send(")
    writeFileSync(join(work, "example.ts"), `${example}\n${appStubs}`)
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          types: [],
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          paths: { "@talab/client-sdk": [join(packageDir, "src", "index.ts")] }
        },
        files: ["example.ts"]
      })
    )
    writeFileSync(join(work, "package.json"), JSON.stringify({ type: "module" }))
    const tsc = join(packageDir, "..", "..", "node_modules", ".bin", "tsc")
    const outcome = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(tsc, ["-p", join(work, "tsconfig.json")], { encoding: "utf8" }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, output: stdout + stderr })
      )
    )
    expect(outcome.output).toBe("")
    expect(outcome.code).toBe(0)
  })
})
