import { PushType } from "@talab/core"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import {
  AckFrame,
  AuthFrame,
  AuthOkFrame,
  CATCH_UP_MAX,
  CaughtUpFrame,
  ErrorFrame,
  MAX_FRAME_BYTES,
  MessageFrame,
  PingFrame,
  PongFrame,
  SendMessageFrame,
  SubscribedFrame,
  SubscribeFrame,
  UnsubscribedFrame,
  UnsubscribeFrame,
  UserEventFrame
} from "../realtime/Protocol.js"

type Json = Record<string, any>

/** A frame's JSON schema, self-contained (definitions inlined), for the AsyncAPI document. */
const schemaOf = (schema: Schema.Schema.Any): Json => {
  const definitions: Json = {}
  const json = JSONSchema.fromAST(schema.ast, { definitions, target: "jsonSchema2020-12" }) as Json
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline)
    if (node === null || typeof node !== "object") return node
    const ref = (node as Json).$ref
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) return inline(definitions[ref.slice("#/$defs/".length)])
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]))
  }
  const { $schema: _, ...rest } = inline(json) as Json
  return rest
}

const exampleMessage = {
  id: "7a1d9c4b-2e6f-4b8a-8c3d-1e2f3a4b5c6d",
  conversation_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
  seq: 12,
  sender_id: "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a",
  message_text: "Is it still available?",
  masked: false,
  created_at: "2026-03-01T09:30:00.000Z"
}

interface FrameDocs {
  readonly schema: Schema.Schema.Any
  readonly title: string
  readonly summary: string
  readonly example: Json
}

const clientFrames: Record<string, FrameDocs> = {
  auth: {
    schema: AuthFrame,
    title: "auth",
    summary:
      "The first frame: the REST access token, and optionally the language of the socket's error messages (`ar` or `en`). Within 10 s, or the socket closes with 4401.",
    example: { type: "auth", token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.signature", language: "en" }
  },
  subscribe: {
    schema: SubscribeFrame,
    title: "subscribe",
    summary: `Receive a conversation's messages: channel \`conversation.<id>\`, for its two parties only. With \`since_seq\` (the last \`seq\` the client has, 0 for none) the server answers \`subscribed\`, then the messages after it as \`message\` frames, oldest first (at most ${CATCH_UP_MAX}), then \`caught_up\`, then live messages: no gap and no duplicate, even for a message stored during the catch-up.`,
    example: { type: "subscribe", channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f", since_seq: 11 }
  },
  unsubscribe: {
    schema: UnsubscribeFrame,
    title: "unsubscribe",
    summary: "Stop receiving a conversation's messages.",
    example: { type: "unsubscribe", channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f" }
  },
  sendMessage: {
    schema: SendMessageFrame,
    title: "message (send)",
    summary:
      "Send a message, stored as by REST. `client_id` (the client's own id) makes a resend safe: the same id stores nothing new and acks the first message.",
    example: {
      type: "message",
      conversation_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
      message_text: "Is it still available?",
      client_id: "b1e2c3d4-0000-4000-8000-000000000001"
    }
  },
  ping: {
    schema: PingFrame,
    title: "ping",
    summary: "Keep-alive; the server answers `pong`.",
    example: { type: "ping" }
  }
}

const serverFrames: Record<string, FrameDocs> = {
  authOk: {
    schema: AuthOkFrame,
    title: "auth_ok",
    summary: "The token was accepted.",
    example: { type: "auth_ok", user_id: "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a" }
  },
  subscribed: {
    schema: SubscribedFrame,
    title: "subscribed",
    summary: "The subscription is active.",
    example: { type: "subscribed", channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f" }
  },
  unsubscribed: {
    schema: UnsubscribedFrame,
    title: "unsubscribed",
    summary: "The subscription ended (also when there was none).",
    example: { type: "unsubscribed", channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f" }
  },
  message: {
    schema: MessageFrame,
    title: "message (received)",
    summary:
      "A message of a subscribed conversation, sent over WebSocket or REST, to every subscribed socket; also the missed messages of a `subscribe` with `since_seq`. `seq` numbers a conversation's messages 1, 2, 3, … with no gaps: order and deduplicate by it (two messages stored at nearly the same moment on two instances may arrive swapped).",
    example: { type: "message", data: exampleMessage }
  },
  ack: {
    schema: AckFrame,
    title: "ack",
    summary: "Your message frame was stored: the message as stored, with your `client_id`.",
    example: { type: "ack", client_id: "b1e2c3d4-0000-4000-8000-000000000001", data: exampleMessage }
  },
  caughtUp: {
    schema: CaughtUpFrame,
    title: "caught_up",
    summary: `Ends the catch-up of a \`subscribe\` with \`since_seq\`: \`last_seq\` is the last message it sent (\`since_seq\` when none). \`has_more: true\` when more than ${CATCH_UP_MAX} were missed: fetch the rest with \`GET /api/v1/conversations/{id}/messages?after_seq=<last_seq>\` (live messages keep coming meanwhile, so some may arrive before the ones fetched). Live frames with a \`seq\` at or below \`last_seq\` are never sent after it.`,
    example: {
      type: "caught_up",
      channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
      last_seq: 12,
      has_more: false
    }
  },
  error: {
    schema: ErrorFrame,
    title: "error",
    summary:
      "A frame failed: `UNAUTHORIZED` (not authenticated yet, or a bad token, then close 4401), `VALIDATION_ERROR` (malformed JSON, unknown type, invalid field; the socket stays open), `FORBIDDEN`, `NOT_FOUND`, `RATE_LIMITED` (over the per-minute message limit; the frame is dropped), `INTERNAL_ERROR`.",
    example: {
      type: "error",
      code: "FORBIDDEN",
      message: "You are not allowed to do this",
      channel: "conversation.3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f"
    }
  },
  pong: { schema: PongFrame, title: "pong", summary: "The answer to `ping`.", example: { type: "pong" } },
  event: {
    schema: UserEventFrame,
    title: "event",
    summary:
      "An event on the socket's user channel `user.<user id>`, which every authenticated socket is on without subscribing. `request_match`: a new request matched one of the seller's alert rules (sent once per request and seller, also during the seller's quiet hours, which hold only the push). `offer_created`: a seller made an offer on one of the buyer's requests (every offer, as it is made; its push is at most hourly per request and seller). Live only: a socket that was not connected gets the push instead.",
    example: {
      type: "event",
      channel: "user.c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a",
      event: "request_match",
      data: {
        request_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
        category: "phone",
        product_brand: "Apple",
        product_model: "iPhone 15 Pro",
        budget_min: 3000,
        budget_max: 3500,
        location_city: "Riyadh",
        location_district: "Olaya",
        created_at: "2026-11-23T16:00:00.000Z"
      }
    }
  }
}

const pushPayload = {
  type: "object",
  required: ["title", "body", "data"],
  properties: {
    title: { type: "string", description: "In the recipient's language." },
    body: { type: "string", description: "In the recipient's language; a message push quotes up to 200 characters." },
    data: {
      type: "object",
      description: "String values only (FCM `data`, APNs custom keys beside `aps`).",
      required: ["type"],
      properties: {
        type: {
          type: "string",
          enum: [...PushType.literals]
        },
        request_id: {
          type: "string",
          format: "uuid",
          description:
            "offer_created, offer_accepted, offer_countered, offer_revised, request_match, request_expiring, request_expired"
        },
        match_count: {
          type: "string",
          description:
            "request_match_summary: how many held matches (quiet hours, or past the hourly limit of alert pushes) it sums up (decimal digits)"
        },
        offer_id: {
          type: "string",
          format: "uuid",
          description: "offer_created, offer_accepted, offer_countered, offer_revised"
        },
        counter_id: { type: "string", format: "uuid", description: "offer_countered: the counter it announces" },
        deal_id: { type: "string", format: "uuid", description: "offer_accepted, rating_prompt" },
        conversation_id: {
          type: "string",
          format: "uuid",
          description: "offer_created, offer_countered, offer_revised, message"
        },
        seller_profile_id: {
          type: "string",
          format: "uuid",
          description: "seller_profile_rejected: the application an admin rejected"
        }
      }
    }
  }
}

const messagesOf = (frames: Record<string, FrameDocs>) =>
  Object.fromEntries(
    Object.entries(frames).map(([key, frame]) => [
      key,
      {
        name: frame.title,
        title: frame.title,
        summary: frame.summary,
        contentType: "application/json",
        payload: schemaOf(frame.schema),
        examples: [{ name: frame.title, payload: frame.example }]
      }
    ])
  )

const refs = (channel: string, frames: Record<string, FrameDocs>) =>
  Object.keys(frames).map((key) => ({ $ref: `#/channels/${channel}/messages/${key}` }))

let cached: Json | undefined

/**
 * The AsyncAPI 3.1 document of the WebSocket protocol at `/ws` and of the push notifications, served at
 * /api/v1/asyncapi.json; its frames are the schemas the server decodes and encodes with.
 */
export const asyncApiDocument = (): Json => {
  if (cached !== undefined) return cached
  cached = {
    asyncapi: "3.1.0",
    info: {
      title: "Talab realtime API",
      version: "1.0.0",
      description: `Live chat over a WebSocket on the API's own port, and the push notifications the server sends.

Connect to \`/ws\` (\`wss:\` behind TLS) and send \`auth\` with the REST access token first; every frame is one JSON
text of at most ${MAX_FRAME_BYTES / 1024} KiB (a larger one closes the socket with 1009). A browser's \`Origin\` must be
one of \`CORS_ORIGINS\`. Close codes: 4401 (no auth in 10 s, a bad token, or the session ended), 4008 (the session
or user opened more sockets than allowed: the oldest goes), 1009 (frame too large), 1001 (server shutting down).
The server pings every 30 s; a socket that does not answer is closed.

The handshake is refused, with the REST error envelope as an HTTP answer and no upgrade: 426 \`UPGRADE_REQUIRED\`
(with \`Upgrade: websocket\`) to a plain \`GET /ws\`, 429 \`RATE_LIMITED\` (with \`Retry-After\` in seconds and the
\`RateLimit-*\` headers) past the per-network handshake limit, 403 \`FORBIDDEN\` to a browser \`Origin\` not in
\`CORS_ORIGINS\`.

Every \`error\` frame's \`message\` (and \`details\`) is in the socket's language: the \`auth\` frame's \`language\`,
then the handshake's \`Accept-Language\`, then the user's saved language, then Arabic. A second \`auth\` on an
authenticated socket answers \`VALIDATION_ERROR\` (\`details.type\`) and changes nothing.`,
      license: { name: "MIT", url: "https://opensource.org/licenses/MIT" }
    },
    defaultContentType: "application/json",
    servers: {
      api: { host: "localhost:3000", protocol: "ws", pathname: "/ws", description: "The API server, on its own port" },
      fcm: {
        host: "fcm.googleapis.com",
        protocol: "https",
        pathname: "/v1/projects/{projectId}/messages:send",
        description: "Firebase Cloud Messaging HTTP v1, with `PUSH_PROVIDER=fcm`: Android devices and web.",
        variables: { projectId: { description: "`FCM_PROJECT_ID`" } }
      },
      apns: {
        host: "api.push.apple.com",
        protocol: "https",
        pathname: "/3/device/{deviceToken}",
        description: "Apple Push Notification service over HTTP/2, with `PUSH_PROVIDER=apns`: iOS devices.",
        variables: { deviceToken: { description: "The device token registered with `POST /device-tokens`" } }
      }
    },
    channels: {
      chat: {
        address: "/ws",
        title: "Chat WebSocket",
        servers: [{ $ref: "#/servers/api" }],
        messages: { ...messagesOf(clientFrames), ...messagesOf(serverFrames) }
      },
      push: {
        address: "push",
        title: "Push notifications (FCM, APNs)",
        servers: [{ $ref: "#/servers/fcm" }, { $ref: "#/servers/apns" }],
        description:
          "Sent to every registered device of the recipient (POST /device-tokens): `offer_created` to the buyer of the request, `offer_accepted` to buyer and seller, `message` to a recipient with no socket subscribed to the conversation, `rating_prompt` to the buyer when a deal completes, `request_match` to an approved seller when a new request matches one of their alert rules (once per request), `request_match_summary` to a seller when their quiet hours end, or their hourly limit of alert pushes frees up, counting the matches held meanwhile, `offer_created` at most once an hour per request and seller, `request_expiring` to the buyer a day before their request expires and `request_expired` when it does, `offer_countered` to the seller when the buyer counters their offer (its body states the counter's price) `offer_revised` to the buyer when the seller revises an offer on their request, and `seller_profile_rejected` to an applicant when an admin rejects their seller application (its body quotes the admin's reason when there is one). A counter or a revision also posts a message to the offer's conversation (`kind` `counter` or `revision`, the price in its `message_text`), delivered on the socket like any message.",
        messages: {
          push: {
            name: "push",
            title: "Push notification",
            contentType: "application/json",
            payload: pushPayload,
            examples: [
              {
                name: "offer_created",
                payload: {
                  title: "New offer on your request",
                  body: "Offer from Rawdah Mobiles: Apple iPhone 15 Pro for 3,200",
                  data: {
                    type: "offer_created",
                    request_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
                    offer_id: "7a1d9c4b-2e6f-4b8a-8c3d-1e2f3a4b5c6d",
                    conversation_id: "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a"
                  }
                }
              },
              {
                name: "offer_countered",
                payload: {
                  title: "A counter-offer on your offer",
                  body: "Sara proposes 2,800 for Apple iPhone 15 Pro",
                  data: {
                    type: "offer_countered",
                    request_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
                    offer_id: "7a1d9c4b-2e6f-4b8a-8c3d-1e2f3a4b5c6d",
                    conversation_id: "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a",
                    counter_id: "9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e"
                  }
                }
              }
            ]
          }
        }
      }
    },
    operations: {
      sendFrame: {
        action: "receive",
        security: [{ $ref: "#/components/securitySchemes/accessToken" }],
        title: "Frames the client sends",
        channel: { $ref: "#/channels/chat" },
        messages: refs("chat", clientFrames)
      },
      receiveFrame: {
        action: "send",
        security: [{ $ref: "#/components/securitySchemes/accessToken" }],
        title: "Frames the server sends",
        channel: { $ref: "#/channels/chat" },
        messages: refs("chat", serverFrames)
      }
    },
    components: {
      securitySchemes: {
        accessToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The REST access token, sent in the first frame (`auth`), not in a header."
        }
      }
    }
  }
  return cached
}
