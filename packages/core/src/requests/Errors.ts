import * as Data from "effect/Data"

/** The buy request is closed or expired, so it takes no new offer and no acceptance. */
export class RequestNotActive extends Data.TaggedError("RequestNotActive")<{}> {
  readonly code = "REQUEST_NOT_ACTIVE" as const
}

/** The buyer tried to close or extend a request that is closed already. */
export class RequestAlreadyClosed extends Data.TaggedError("RequestAlreadyClosed")<{}> {
  readonly code = "REQUEST_ALREADY_CLOSED" as const
}

/** The request reached its expiry without being closed. */
export class RequestExpired extends Data.TaggedError("RequestExpired")<{}> {
  readonly code = "REQUEST_EXPIRED" as const
}

/** The request was extended once already. */
export class RequestAlreadyExtended extends Data.TaggedError("RequestAlreadyExtended")<{}> {
  readonly code = "REQUEST_ALREADY_EXTENDED" as const
}
