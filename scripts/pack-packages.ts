/*
 * Installable tarballs of the published packages before they are on a registry: builds @talab/core,
 * @talab/contract, @talab/client-sdk and @talab/testkit and packs them with pnpm (which applies publishConfig and turns
 * `workspace:*` into the versions), all into one folder (default dist/packages). Install them together:
 *   npm install <folder>/talab-core-*.tgz <folder>/talab-contract-*.tgz <folder>/talab-client-sdk-*.tgz \
 *     <folder>/talab-testkit-*.tgz
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const args = process.argv.slice(2)
// --reuse-dist: pack the dist/ a package already has (CI's packaging checks have just built every one).
const reuseDist = args.includes("--reuse-dist")
const folder = resolve(root, args.find((arg) => !arg.startsWith("--")) ?? "dist/packages")
const packages = ["core", "contract", "client-sdk", "testkit"]

rmSync(folder, { recursive: true, force: true })
mkdirSync(folder, { recursive: true })
for (const name of packages) {
  const dir = join(root, "packages", name)
  if (!reuseDist || !existsSync(join(dir, "dist", "index.js"))) {
    execFileSync("pnpm", ["run", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
  }
  execFileSync("pnpm", ["pack", "--pack-destination", folder], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
}
for (const file of readdirSync(folder).sort()) console.log(join(folder, file))
