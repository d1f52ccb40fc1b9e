import { openApiDocument } from "@talab/contract"
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

/*
 * Every call the end-to-end client makes is checked against the OpenAPI document the server serves, with AJV
 * 2020-12 (a validator we did not write) for the bodies: the status must be one the operation declares, the JSON
 * body must match that status's schema, every API header the answer carries must be declared on it, and a request
 * body the server accepted must be one the document accepts. A violation fails the test that made the call (see
 * protocol-check.setup.ts).
 */

type Json = Record<string, any>

// ajv-formats is CommonJS: under Node's ESM the default import is `module.exports`, the plugin is its `default`.
const addFormats = addFormatsModule.default
const ROOT = "https://talab.example/openapi.json"
const OPENAPI_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"]
const OPENAPI_FORMATS = ["int32", "int64", "float", "double", "byte", "binary", "password"]

/** The headers an answer of the API may carry that a client reads: each must be declared where it is sent. */
const API_HEADERS = [
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "retry-after",
  "etag",
  "cache-control",
  "idempotent-replayed",
  "location",
  "content-disposition"
]

interface Operation {
  readonly template: string
  readonly method: string
  readonly pattern: RegExp
  readonly operation: Json
}

const compiled = (() => {
  const document = JSON.parse(JSON.stringify(openApiDocument())) as Json
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats(ajv)
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword({ keyword })
  for (const format of OPENAPI_FORMATS) ajv.addFormat(format, true)
  const rooted = (schema: Json) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${ROOT}#/$defs/`)) as Json
  ajv.addSchema({ $id: ROOT, $defs: rooted(document.components?.schemas ?? {}) })
  const validators = new Map<Json, ValidateFunction>()
  const validatorOf = (schema: Json) => {
    let validate = validators.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(rooted(schema))
      validators.set(schema, validate)
    }
    return validate
  }
  const operations: Array<Operation> = []
  for (const [template, item] of Object.entries<Json>(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`)
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (typeof operation === "object" && operation !== null && "responses" in operation) {
        operations.push({ template, method: method.toUpperCase(), pattern, operation })
      }
    }
  }
  // A literal segment wins over a parameter (`/requests/my` over `/requests/{id}`).
  operations.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0))
  return { operations, validatorOf }
})()

export interface CheckedCall {
  readonly method: string
  readonly url: string
  /** The JSON body sent, when one was. */
  readonly requestJson?: unknown
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON answer, or the text when it was not JSON, or undefined when empty. */
  readonly body: unknown
}

const violations: Array<string> = []
let callsChecked = 0

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`).join("; ")

/** Checks one call; answers nothing, keeps each violation for the running test. */
export const checkApiCall = (call: CheckedCall) => {
  const { pathname } = new URL(call.url)
  const found = compiled.operations.find((o) => o.method === call.method && o.pattern.test(pathname))
  // A path or method the API does not have (tests send them on purpose): nothing to hold it to.
  if (found === undefined) return
  callsChecked++
  const where = `${call.method} ${found.template} → ${call.status}`
  const response = found.operation.responses[String(call.status)] ?? found.operation.responses.default
  if (response === undefined) {
    violations.push(`${where}: a status the document does not declare`)
    return
  }
  for (const name of API_HEADERS) {
    if (!call.headers.has(name)) continue
    const declared = Object.keys(response.headers ?? {}).some((header) => header.toLowerCase() === name)
    if (!declared) violations.push(`${where}: header ${name} is sent but not declared`)
  }
  const schema = response.content?.["application/json"]?.schema
  if (call.body !== undefined && schema !== undefined) {
    const validate = compiled.validatorOf(schema)
    if (!validate(call.body)) violations.push(`${where}: the body does not match its schema (${errorsOf(validate)})`)
  } else if (call.body !== undefined && response.content === undefined) {
    violations.push(`${where}: a body where the document declares none`)
  }
  const requestSchema = found.operation.requestBody?.content?.["application/json"]?.schema
  if (call.status < 300 && call.requestJson !== undefined && requestSchema !== undefined) {
    const validate = compiled.validatorOf(requestSchema)
    if (!validate(call.requestJson)) {
      violations.push(`${where}: the server accepted a body the document refuses (${errorsOf(validate)})`)
    }
  }
}

/** The violations since the last call, which clears them. */
export const takeApiViolations = (): ReadonlyArray<string> => violations.splice(0)

/** How many calls were held to the document in this process. */
export const apiCallCount = () => callsChecked
