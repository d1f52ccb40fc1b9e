import type { DomainError } from "@talab/core"
import * as Data from "effect/Data"

/** A body over its size limit (413): a limit of the HTTP edge, not a rule of the domain. */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{}> {
  readonly code = "PAYLOAD_TOO_LARGE" as const
}

/** What a handler's effect may fail with on purpose: the domain's errors and the edge's own. */
export type HandlerError = DomainError | PayloadTooLarge
