import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer } from "effect"
import { AppConfig, describeConfigError } from "../src/config/AppConfig.js"
import { readVariable, type VariableName, variables } from "../src/config/Settings.js"

/*
 * An environment variable set to the empty text counts as unset (docs/DECISIONS.md): `METRICS_PORT=` in an env
 * file or `${X:-}` in compose must start the server exactly as if the line were not there. Checked over every
 * declared variable, so one added later is covered without a line here.
 */

const names = Object.keys(variables) as ReadonlyArray<VariableName>

/** The settings read from exactly these variables, or the one line a refused start prints. */
const outcomeOf = (environment: Record<string, string>) =>
  Layer.build(AppConfig.fromEnv).pipe(
    Effect.map(Context.get(AppConfig)),
    Effect.scoped,
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(environment)))),
    Effect.either,
    Effect.map(Either.mapLeft(describeConfigError))
  )

const without = (environment: Record<string, string>, name: string) =>
  Object.fromEntries(Object.entries(environment).filter(([key]) => key !== name))

/** A production environment that starts: every rule that production adds is met. */
const production = {
  NODE_ENV: "production",
  JWT_SECRET: "a-production-secret-of-at-least-32-bytes",
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: "AC1",
  TWILIO_AUTH_TOKEN: "token",
  TWILIO_FROM: "+15550000000",
  PUSH_PROVIDER: "fcm",
  FCM_PROJECT_ID: "project",
  FCM_SERVICE_ACCOUNT_JSON: "{}"
}

describe("an empty variable is an unset one", () => {
  it("the table declares the variables this test walks", () => {
    expect(names.length).toBeGreaterThan(40)
    expect(names).toEqual(expect.arrayContaining(["METRICS_PORT", "MIGRATE_ON_START", "RETENTION_DAYS", "PORT"]))
  })

  it.effect.each(names)("%s= reads as its default", (name) =>
    Effect.gen(function* () {
      for (const empty of ["", "  "]) {
        const read = yield* readVariable(name).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([[name, empty]])))
        )
        expect(read).toEqual(variables[name].default)
      }
    })
  )

  it.effect.each(names)("%s= starts the server as if unset (development and production)", (name) =>
    Effect.gen(function* () {
      expect(yield* outcomeOf({ [name]: "" })).toEqual(yield* outcomeOf({}))
      const unsetInProduction = yield* outcomeOf(without(production, name))
      expect(yield* outcomeOf({ ...production, [name]: "" })).toEqual(unsetInProduction)
    })
  )

  it.effect("production still names what it requires when it is empty", () =>
    Effect.gen(function* () {
      expect(yield* outcomeOf({ ...production, JWT_SECRET: "" })).toEqual(
        Either.left("Invalid configuration: JWT_SECRET: is required when NODE_ENV=production")
      )
      expect(yield* outcomeOf({ ...production, TWILIO_FROM: "" })).toEqual(
        Either.left("Invalid configuration: TWILIO_FROM: is required when SMS_PROVIDER=twilio")
      )
    })
  )

  it.effect("every variable empty at once is the empty environment", () =>
    Effect.gen(function* () {
      expect(yield* outcomeOf(Object.fromEntries(names.map((name) => [name, ""])))).toEqual(yield* outcomeOf({}))
    })
  )
})
