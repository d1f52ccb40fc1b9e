import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ACCESS_TOKEN_TTL_SECONDS } from "@talab/core"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { ErrorCases } from "../src/docs/Annotations.js"
import { openApiDocumentOf } from "../src/docs/OpenApiDocument.js"
import { Api, asyncApiDocument, openApiDocument } from "../src/index.js"

const document = openApiDocument() as any
const operations = Object.entries<any>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation }))
)

describe("the API reference", () => {
  it("names the server, the license and a contact", () => {
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }])
    expect(document.info.license.name).toBe("MIT")
    expect(document.info.contact.email).toMatch(/@/)
    expect(document.info.description).toContain("/api/v1/asyncapi.json")
  })

  it("states the tokens' lifetimes the server gives them, and shows them in its examples", () => {
    expect(document.info.description).toContain(`\`expires_in\` = ${ACCESS_TOKEN_TTL_SECONDS} seconds, 24 hours`)
    expect(document.info.description).toContain("refresh token (30 days)")
    const signIn = document.paths["/api/v1/auth/verify-otp"].post.responses["200"].content["application/json"]
    expect(signIn.example.data.tokens.expires_in).toBe(ACCESS_TOKEN_TTL_SECONDS)
  })

  it("gives every tag a readable name and a description, and every operation a known tag", () => {
    const names = document.tags.map((tag: any) => tag.name)
    expect(names).toHaveLength(Object.keys(Api.groups).length)
    for (const identifier of Object.keys(Api.groups)) expect(names).not.toContain(identifier)
    for (const tag of document.tags) expect(tag.description.length).toBeGreaterThan(20)
    for (const { operation } of operations) expect(names).toContain(operation.tags[0])
  })

  it.each(operations.map(({ path, method, operation }) => [method.toUpperCase(), path, operation] as const))(
    "%s %s has a summary, its rules, an error table and examples",
    (_, __, operation) => {
      expect(operation.summary.length).toBeGreaterThan(5)
      expect(operation.description).toMatch(/^[^|\n]{20,}\n\n\| Status \| Code \| When \|/)
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const media = response.content?.["application/json"]
        if (Number(status) >= 400) {
          expect(operation.description).toMatch(new RegExp(`\\| ${status} \\| \`[A-Z_]+\` \\|`))
          const examples = Object.values<any>(media.examples)
          expect(examples.length).toBeGreaterThan(0)
          for (const example of examples) expect(example.value).toMatchObject({ success: false, error: {} })
        } else if (media !== undefined) {
          expect(media.example).toMatchObject({ success: true })
        }
      }
      const body = operation.requestBody?.content?.["application/json"]
      if (body !== undefined) expect(body.example).toBeTypeOf("object")
    }
  )

  it("lists in each error table exactly the codes the operation's responses allow", () => {
    const accept = document.paths["/api/v1/offers/{id}/accept"].post
    for (const code of [
      "OFFER_ALREADY_ACCEPTED",
      "OFFER_NOT_PENDING",
      "OFFER_EXPIRED",
      "REQUEST_NOT_ACTIVE",
      "FORBIDDEN",
      "NOT_FOUND"
    ]) {
      expect(accept.description).toContain(`\`${code}\``)
    }
    expect(accept.description).not.toContain("`DEAL_NOT_ACTIVE`")
    expect(Object.keys(accept.responses["422"].content["application/json"].examples)).toEqual([
      "OFFER_ALREADY_ACCEPTED",
      "OFFER_NOT_PENDING",
      "OFFER_EXPIRED",
      "OFFER_CHANGED",
      "REQUEST_NOT_ACTIVE",
      "IDEMPOTENCY_KEY_REUSED"
    ])
  })

  it("documents Idempotency-Key on every POST, with its 409 and 422 and the Idempotent-Replayed header", () => {
    const posts = Object.entries<any>(document.paths).filter(([, item]) => item.post !== undefined)
    expect(posts.length).toBe(16)
    for (const [path, { post }] of posts) {
      expect(
        post.parameters.map((p: any) => p.name),
        path
      ).toContain("Idempotency-Key")
      expect(Object.keys(post.responses["409"].content["application/json"].examples), path).toEqual([
        "IDEMPOTENCY_KEY_IN_USE"
      ])
      expect(Object.keys(post.responses["422"].content["application/json"].examples), path).toContain(
        "IDEMPOTENCY_KEY_REUSED"
      )
      const success = Object.entries<any>(post.responses).find(([status]) => Number(status) < 300)![1]
      expect(success.headers["Idempotent-Replayed"], path).toBeDefined()
    }
    const get = document.paths["/api/v1/requests"].get
    expect((get.parameters ?? []).map((p: any) => p.name)).not.toContain("Idempotency-Key")
  })

  it("refuses to document an endpoint without a summary or a description", () => {
    const bare = HttpApi.make("bare").add(
      HttpApiGroup.make("things").add(HttpApiEndpoint.get("list", "/things").addSuccess(Schema.String))
    )
    expect(() => openApiDocumentOf(bare)).toThrow(/things\.list/)
    const summarized = HttpApi.make("summarized").add(
      HttpApiGroup.make("things").add(
        HttpApiEndpoint.get("list", "/things").addSuccess(Schema.String).annotate(OpenApi.Summary, "List things")
      )
    )
    expect(() => openApiDocumentOf(summarized)).toThrow(/things\.list/)
  })

  it("names in an endpoint's error cases only codes its responses can answer", () => {
    const named: Array<{ id: string; code: string }> = []
    HttpApi.reflect(Api, {
      onGroup() {},
      onEndpoint({ endpoint, group }) {
        const cases = Context.getOrElse(endpoint.annotations, ErrorCases, () => ({}))
        for (const code of Object.keys(cases)) named.push({ id: `${group.identifier}.${endpoint.name}`, code })
      }
    })
    expect(named.length).toBeGreaterThan(30)
    for (const { id, code } of named) {
      const { operation } = operations.find(({ operation }) => operation.operationId === id)!
      expect(operation.description, `${id} names ${code}`).toContain(`| \`${code}\` |`)
    }
  })

  it("documents every WebSocket frame and the push payload in AsyncAPI 3", () => {
    const asyncApi = asyncApiDocument()
    expect(asyncApi.asyncapi).toBe("3.1.0")
    const titles = Object.values<any>(asyncApi.channels.chat.messages).map((message) => message.title)
    for (const frame of ["auth", "subscribe", "unsubscribe", "ping", "auth_ok", "subscribed", "ack", "error", "pong"]) {
      expect(titles).toContain(frame)
    }
    expect(asyncApi.channels.push.messages.push.payload.properties.data.properties.type.enum).toEqual([
      "offer_created",
      "offer_accepted",
      "message",
      "rating_prompt",
      "request_match",
      "request_match_summary",
      "request_expiring",
      "request_expired",
      "offer_countered",
      "offer_revised",
      "seller_profile_rejected"
    ])
  })
})
