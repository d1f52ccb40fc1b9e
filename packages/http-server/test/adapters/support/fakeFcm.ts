import type { KeyObject } from "node:crypto"
import { Effect } from "effect"
import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose"
import { type FakeReply, fakeHttpServer, type RecordedRequest } from "./fakeHttpServer.js"

/* FCM v1 answers, as Google sends them. */

export const unregistered: FakeReply = {
  status: 404,
  body: {
    error: {
      code: 404,
      message: "Requested entity was not found.",
      status: "NOT_FOUND",
      details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "UNREGISTERED" }]
    }
  }
}
export const unavailable: FakeReply = {
  status: 503,
  headers: { "retry-after": "30" },
  body: {
    error: {
      code: 503,
      message: "The service is currently unavailable.",
      status: "UNAVAILABLE",
      details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "UNAVAILABLE" }]
    }
  }
}
export const invalidArgument: FakeReply = {
  status: 400,
  body: {
    error: {
      code: 400,
      message: "Request contains an invalid argument.",
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "INVALID_ARGUMENT" }]
    }
  }
}
export const unauthenticated: FakeReply = {
  status: 401,
  body: {
    error: {
      code: 401,
      message: "Request had invalid authentication credentials.",
      status: "UNAUTHENTICATED"
    }
  }
}

/**
 * A fake of Google's token endpoint (`/token`) and FCM on one server. The token endpoint checks the assertion's
 * RS256 signature with `publicKey` and hands out numbered access tokens; FCM answers with `onSend`.
 */
export const fakeFcm = (options: {
  readonly projectId: string
  readonly publicKey: KeyObject
  readonly onSend: (request: RecordedRequest, sendIndex: number) => FakeReply
}) =>
  Effect.gen(function* () {
    const sendPath = `/v1/projects/${options.projectId}/messages:send`
    const tokenRequests: Array<{ grantType: string | null; claims: Record<string, unknown>; alg: string }> = []
    let sends = 0
    const server = yield* fakeHttpServer(async (request) => {
      if (request.path === "/token") {
        const form = new URLSearchParams(request.body)
        const assertion = form.get("assertion") ?? ""
        try {
          await compactVerify(assertion, options.publicKey)
        } catch {
          return { status: 400, body: { error: "invalid_grant", error_description: "Invalid JWT Signature." } }
        }
        tokenRequests.push({
          grantType: form.get("grant_type"),
          claims: decodeJwt(assertion),
          alg: decodeProtectedHeader(assertion).alg ?? ""
        })
        return {
          status: 200,
          body: { access_token: `ya29.access-${tokenRequests.length}`, expires_in: 3599, token_type: "Bearer" }
        }
      }
      if (request.path === sendPath) return options.onSend(request, sends++)
      return { status: 404, body: "Not Found" }
    })
    const sendRequests = () => server.requests.filter((request) => request.path === sendPath)
    return { url: server.url, tokenRequests, sendRequests }
  })
