/**
 * The import graph of the workspace's sources, between packages and between feature folders, as text and as
 * Graphviz DOT. `pnpm graph` prints both; `pnpm graph --dot` only the DOT (pipe it to `dot -Tsvg`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(dirname(new URL(import.meta.url).pathname), "..")
const sourceRoots = [
  "packages/core/src",
  "packages/contract/src",
  "packages/http-server/src",
  "packages/client-sdk/src",
  "packages/testkit/src",
  "apps/server/src"
]
const packageOfName: Record<string, string> = {
  "@talab/core": "core",
  "@talab/contract": "contract",
  "@talab/http-server": "http-server",
  "@talab/client-sdk": "client-sdk",
  "@talab/testkit": "testkit"
}

const filesUnder = (directory: string): Array<string> =>
  readdirSync(directory).flatMap((name) => {
    const path = join(directory, name)
    if (statSync(path).isDirectory()) return name === "generated" ? [] : filesUnder(path)
    return path.endsWith(".ts") ? [path] : []
  })

/** `core/offers` for packages/core/src/offers/Offer.ts; a file at a package's root is its `(root)`. */
const placeOf = (file: string) => {
  const rel = relative(root, file)
  const sourceRoot = sourceRoots.find((r) => rel.startsWith(`${r}/`))
  if (sourceRoot === undefined) return undefined
  const pkg = sourceRoot.split("/")[1]!
  const inside = rel.slice(sourceRoot.length + 1).split("/")
  return { pkg, folder: `${pkg}/${inside.length > 1 ? inside[0] : "(root)"}` }
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g
const packageEdges = new Map<string, number>()
const folderEdges = new Map<string, number>()
const count = (edges: Map<string, number>, edge: string) => edges.set(edge, (edges.get(edge) ?? 0) + 1)

for (const sourceRoot of sourceRoots) {
  for (const file of filesUnder(join(root, sourceRoot))) {
    const from = placeOf(file)!
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (specifier!.startsWith(".")) {
        const to = placeOf(resolve(dirname(file), specifier!))
        if (to !== undefined && to.folder !== from.folder) count(folderEdges, `${from.folder} -> ${to.folder}`)
      } else {
        const target = packageOfName[specifier!.split("/").slice(0, 2).join("/")]
        if (target !== undefined && target !== from.pkg) count(packageEdges, `${from.pkg} -> ${target}`)
      }
    }
  }
}

const sorted = (edges: Map<string, number>) => [...edges].sort(([a], [b]) => a.localeCompare(b))
const dot = (edges: Map<string, number>, name: string) =>
  [
    `digraph ${name} {`,
    ...sorted(edges).map(([edge, n]) => `  ${edge.replace(/([\w@()/-]+)/g, '"$1"')} [label=${n}];`),
    "}"
  ].join("\n")

if (process.argv.includes("--dot")) {
  console.log(dot(packageEdges, "packages"))
  console.log(dot(folderEdges, "folders"))
} else {
  console.log("Between packages (imports):")
  for (const [edge, n] of sorted(packageEdges)) console.log(`  ${edge}  ${n}`)
  console.log("\nBetween feature folders, within a package (imports):")
  for (const [edge, n] of sorted(folderEdges)) console.log(`  ${edge}  ${n}`)
}
