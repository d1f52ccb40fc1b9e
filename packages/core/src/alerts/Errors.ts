import * as Data from "effect/Data"

/** A seller already has the most alert rules allowed (`max`); one must go before another is added. */
export class AlertRuleLimitReached extends Data.TaggedError("AlertRuleLimitReached")<{ readonly max: number }> {
  readonly code = "ALERT_RULE_LIMIT_REACHED" as const
}
