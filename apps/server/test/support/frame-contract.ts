import { asyncApiDocument, CloseCode } from "@talab/contract"
import { Ajv, type ValidateFunction } from "ajv"
import addFormatsModule from "ajv-formats"

/*
 * Every frame a test socket receives is checked against the AsyncAPI document the server serves, by AJV (a
 * validator we did not write): a frame whose type the document does not list, or whose payload its schema refuses,
 * is a violation, and so is a close code the document does not name. The setup file fails the test that received
 * it (see protocol-check.setup.ts).
 */

// ajv-formats is CommonJS: under Node's ESM the default import is `module.exports`, the plugin is its `default`.
const addFormats = addFormatsModule.default

interface FrameSchema {
  readonly properties?: { readonly type: { readonly enum: ReadonlyArray<string> } }
  /** A frame of several shapes (the user channel's events): each branch names its type. */
  readonly anyOf?: ReadonlyArray<FrameSchema>
}

interface Message {
  readonly payload: FrameSchema
}

const typesOf = (schema: FrameSchema): ReadonlyArray<string> =>
  schema.anyOf !== undefined ? schema.anyOf.flatMap(typesOf) : (schema.properties?.type.enum ?? [])

const validators = (() => {
  // AsyncAPI 3's default schema format is a superset of JSON Schema draft 07: AJV's default dialect.
  const ajv = new Ajv({ strict: true, allErrors: true })
  addFormats(ajv)
  const document = asyncApiDocument() as unknown as {
    readonly channels: { readonly chat: { readonly messages: Record<string, Message> } }
    readonly operations: { readonly receiveFrame: { readonly messages: ReadonlyArray<{ readonly $ref: string }> } }
  }
  const byType = new Map<string, ValidateFunction>()
  for (const { $ref } of document.operations.receiveFrame.messages) {
    const message = document.channels.chat.messages[$ref.split("/").at(-1)!]!
    for (const type of typesOf(message.payload)) byType.set(type, ajv.compile(message.payload))
  }
  return byType
})()

/** The close codes the document names, and those the `ws` client reports for an end without a close frame. */
const documentedCloseCodes = new Set<number>([...Object.values(CloseCode), 1000, 1005, 1006])

const violations: Array<string> = []
let framesChecked = 0

/** Checks one received frame; a violation is kept for the running test. */
export const checkServerFrame = (frame: unknown) => {
  framesChecked++
  const type = (frame as { type?: unknown } | null)?.type
  const validate = typeof type === "string" ? byTypeOf(type) : undefined
  if (validate === undefined) {
    violations.push(`a frame of a type the AsyncAPI document does not list: ${JSON.stringify(frame).slice(0, 300)}`)
    return
  }
  if (!validate(frame)) {
    violations.push(
      `a ${String(type)} frame the AsyncAPI document refuses (${validate.errors
        ?.map((error) => `${error.instancePath || "/"} ${error.message}`)
        .join("; ")}): ${JSON.stringify(frame).slice(0, 300)}`
    )
  }
}

const byTypeOf = (type: string) => validators.get(type)

/** Checks the code a test socket closed with. */
export const checkCloseCode = (code: number) => {
  if (!documentedCloseCodes.has(code)) violations.push(`a close code the AsyncAPI document does not name: ${code}`)
}

/** The violations since the last call, which clears them. */
export const takeFrameViolations = (): ReadonlyArray<string> => violations.splice(0)

/** How many frames were checked in this process. */
export const frameCount = () => framesChecked
