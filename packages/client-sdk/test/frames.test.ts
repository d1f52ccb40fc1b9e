import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { statusOfCode } from "@talab/contract"
import { describe, expect, it } from "vitest"
import { generatedFiles } from "../scripts/render.js"
import { ERROR_STATUS } from "../src/errors.js"
import type { ServerFrame } from "../src/realtime.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

// Rendering runs openapi-typescript over the whole API document, seconds of CPU: once for every test here.
let rendered: ReturnType<typeof generatedFiles> | undefined
const generatedFile = async (name: string) => {
  rendered ??= generatedFiles(packageDir)
  const output = (await rendered).find(({ file }) => file.endsWith(name))
  if (output === undefined) throw new Error(`the generator renders no ${name}`)
  return output
}

describe("the SDK's WebSocket frames", () => {
  it("are the types generated from the server's frame schemas, as they are today", async () => {
    const frames = await generatedFile("frames.ts")
    // The frame types the SDK exports come from this file (src/realtime/frames.ts): it must be what the server's
    // schemas render to now, or the SDK's frames have drifted from the server's.
    expect(readFileSync(frames.file, "utf8")).toBe(frames.text)
    // What the hand-written frames had wrong: an ack's client_id may be null, an error frame carries details.
    const block = (name: string) =>
      frames.text.slice(frames.text.indexOf(`readonly ${name}: {`)).split("\n        };")[0]
    expect(block("AckFrame")).toContain("readonly client_id: string | null;")
    expect(block("ErrorFrame")).toContain("readonly details?: {")
  })

  it("type an error frame's details and an ack without a client_id", () => {
    const frames: Array<ServerFrame> = [
      { type: "error", code: "VALIDATION_ERROR", message: "Invalid frame", details: { channel: ["Required"] } },
      {
        type: "ack",
        client_id: null,
        data: {
          id: "7a1d9c4b-2e6f-4b8a-8c3d-1e2f3a4b5c6d",
          conversation_id: "3f6c2a8e-5b1d-4c7a-9e2f-8a1b2c3d4e5f",
          seq: 1,
          sender_id: "c2b7e5a1-9d3f-4e6c-a8b1-5f4e3d2c1b0a",
          kind: "text",
          message_text: "hello",
          masked: false,
          attachments: [],
          created_at: "2026-03-01T09:30:00.000Z"
        }
      }
    ]
    expect(frames.map((frame) => frame.type)).toEqual(["error", "ack"])
  })
})

describe("the SDK's error codes", () => {
  it("are the contract's table of codes and statuses, as it is today", async () => {
    const errors = await generatedFile("errors.ts")
    expect(readFileSync(errors.file, "utf8")).toBe(errors.text)
    expect(ERROR_STATUS).toEqual(statusOfCode)
  })
})
