import { Parser } from "@asyncapi/parser"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { describe, expect, it } from "vitest"
import { asyncApiDocument, openApiDocument } from "../src/index.js"

/*
 * The served documents as app teams read them, with validators nobody here wrote: the OpenAPI 3.1 document under
 * @seriousme/openapi-schema-validator and every schema in it compiled by AJV 2020-12 in strict mode, the AsyncAPI
 * document under @asyncapi/parser. Redocly lints both in `pnpm lint:api`. (The first validator's own `strict`
 * option only takes `false` or `"log"`, and concerns how AJV reads the OpenAPI meta-schema, not this document.)
 */

type Json = Record<string, any>

// ajv-formats is CommonJS: under Node's ESM the default import is `module.exports`, the plugin is its `default`.
const addFormats = addFormatsModule.default

/*
 * The keywords and formats OpenAPI 3.1's schema dialect adds to JSON Schema 2020-12 (OAS 3.1 §4.8.24): AJV
 * knows JSON Schema only, so it is told the dialect; anything else unknown still fails strict mode.
 */
const OPENAPI_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"]
const OPENAPI_FORMATS = ["int32", "int64", "float", "double", "byte", "binary", "password"]

const ROOT = "https://talab.example/openapi.json"

/** Every schema of an OpenAPI document, named by where it sits, its references pointing into one root. */
const schemasOf = (document: Json): Record<string, Json> => {
  const schemas: Record<string, Json> = {}
  for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {})) schemas[name] = schema
  const fromMedia = (where: string, content: Json | undefined) => {
    for (const [type, media] of Object.entries<Json>(content ?? {})) {
      if (media.schema) schemas[`${where} ${type}`] = media.schema
    }
  }
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (typeof operation !== "object" || operation === null || !("responses" in operation)) continue
      const where = `${method.toUpperCase()} ${path}`
      for (const parameter of operation.parameters ?? []) {
        schemas[`${where} ${parameter.in} ${parameter.name}`] = parameter.schema
      }
      fromMedia(`${where} request`, operation.requestBody?.content)
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        fromMedia(`${where} ${status}`, response.content)
        for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
          schemas[`${where} ${status} header ${name}`] = header.schema
        }
      }
    }
  }
  return JSON.parse(JSON.stringify(schemas).replaceAll('"#/components/schemas/', `"${ROOT}#/$defs/`)) as Record<
    string,
    Json
  >
}

/**
 * Compiles every schema of `document` with AJV 2020-12 in strict mode, all in one root so that an identifier
 * (`$id`) defined twice anywhere in the document is an error; answers the errors, none when all compile.
 */
const ajvErrorsOf = (document: Json): ReadonlyArray<string> => {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats(ajv)
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword({ keyword })
  for (const format of OPENAPI_FORMATS) ajv.addFormat(format, true)
  const schemas = schemasOf(document)
  try {
    ajv.addSchema({ $id: ROOT, $defs: schemas })
  } catch (error) {
    return [String(error)]
  }
  const errors: Array<string> = []
  for (const name of Object.keys(schemas)) {
    try {
      ajv.compile({ $ref: `${ROOT}#/$defs/${encodeURIComponent(name.replaceAll("~", "~0").replaceAll("/", "~1"))}` })
    } catch (error) {
      errors.push(`${name}: ${String(error)}`)
    }
  }
  return errors
}

const openApi = JSON.parse(JSON.stringify(openApiDocument())) as Json

describe("the OpenAPI document under independent validators", () => {
  it("is valid OpenAPI 3.1 to @seriousme/openapi-schema-validator", async () => {
    const result = await new Validator().validate(structuredClone(openApi))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it("has every schema compile under AJV 2020-12 in strict mode, with formats", () => {
    expect(Object.keys(schemasOf(openApi)).length).toBeGreaterThan(100)
    expect(ajvErrorsOf(openApi)).toEqual([])
  })

  it("would fail either validator on an identifier defined twice", async () => {
    const broken = structuredClone(openApi)
    const [first, second] = Object.values<Json>(broken.components.schemas)
    Object.assign(first!, { $id: "/schemas/twice" })
    Object.assign(second!, { $id: "/schemas/twice" })
    expect((await new Validator().validate(structuredClone(broken))).valid).toBe(false)
    expect(ajvErrorsOf(broken).join("\n")).toMatch(/more than one schema/)
  })

  it("would fail AJV on a keyword outside JSON Schema and OpenAPI's dialect", () => {
    const broken = structuredClone(openApi)
    Object.assign(Object.values<Json>(broken.components.schemas)[0]!, { readonly: true })
    expect(ajvErrorsOf(broken).join("\n")).toMatch(/unknown keyword: "readonly"/)
  })
})

describe("the AsyncAPI document under @asyncapi/parser", () => {
  it("parses with no error and no warning", async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(asyncApiDocument()))
    const problems = diagnostics.map((d) => `${d.code} at ${d.path.join(".")}: ${d.message}`)
    expect(problems).toEqual([])
    expect(document?.channels().length).toBeGreaterThan(0)
  })
})
