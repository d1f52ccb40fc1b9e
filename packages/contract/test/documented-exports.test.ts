import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/*
 * Every export of the published packages carries a documentation comment, since other teams read them in their
 * editors. One TypeScript program over the four entries, so the compiler reads effect's declarations once.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..")
const publishedPackages = ["core", "contract", "client-sdk", "testkit"] as const
const entryOf = (pkg: string) => join(root, "packages", pkg, "src/index.ts")

const compilerOptions = () => {
  const base = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile)
  return { ...ts.parseJsonConfigFileContent(base.config, ts.sys, root).options, noEmit: true }
}

const hasText = (docs: ReadonlyArray<ts.SymbolDisplayPart>) => ts.displayPartsToString([...docs]).trim() !== ""

/**
 * `export * as Memory from "./memory/index.js"` names a module, which has no comment of its own: its comment is
 * the one on that export declaration.
 */
const namespaceExportDocumented = (symbol: ts.Symbol) =>
  (symbol.declarations ?? []).some(
    (declaration) =>
      ts.isNamespaceExport(declaration) &&
      ts.getJSDocCommentsAndTags(declaration.parent).some((doc) => ts.isJSDoc(doc) && doc.comment !== undefined)
  )

const undocumentedExports = () => {
  const entries = publishedPackages.map(entryOf)
  const program = ts.createProgram(entries, compilerOptions())
  const checker = program.getTypeChecker()
  return publishedPackages.map((pkg) => {
    const source = program.getSourceFile(entryOf(pkg))
    const moduleSymbol = source && checker.getSymbolAtLocation(source)
    if (moduleSymbol === undefined) throw new Error(`${pkg}: no module at ${entryOf(pkg)}`)
    const exported = checker.getExportsOfModule(moduleSymbol)
    const undocumented = exported.flatMap((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      if (hasText(target.getDocumentationComment(checker)) || namespaceExportDocumented(symbol)) return []
      const file = target.declarations?.[0]?.getSourceFile().fileName
      return [`${symbol.name} (${file === undefined ? "?" : relative(root, file)})`]
    })
    return { pkg, exported: exported.length, undocumented }
  })
}

describe("the published packages' exports", () => {
  it("each have a documentation comment", () => {
    const results = undocumentedExports()
    for (const { pkg, exported } of results)
      expect(exported, `${pkg} exports nothing: is its entry found?`).toBeGreaterThan(0)
    expect(Object.fromEntries(results.map(({ pkg, undocumented }) => [pkg, undocumented]))).toEqual({
      core: [],
      contract: [],
      "client-sdk": [],
      testkit: []
    })
  })
})
