import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppConfig } from "@talab/http-server"
import { ConfigProvider, Effect, Either } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { killStartedServers, startServer } from "../support/child-server.js"

/*
 * compose.yaml's defaults must be safe to run in production: no console SMS or log pushes (which send nothing
 * and write codes to the log) unless the operator asks for them. Compose is not installed where CI runs, so its
 * variable substitution (`${X}`, `${X:-default}`, `${X-default}`, `${X:?error}`, `${X?error}`, `$$`) is done
 * here, as compose does it, and what comes out is given to the server.
 */

const composeFile = readFileSync(new URL("../../../../compose.yaml", import.meta.url), "utf8")

class MissingVariable extends Error {}

/** `text` with compose's substitutions made from `shell`; a `?` form whose variable is missing throws. */
const substitute = (text: string, shell: Record<string, string>): string =>
  text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced: string | undefined, colon: string, operator: string, operand: string, bare: string) => {
      if (whole === "$$") return "$"
      const name = braced ?? bare
      const value = shell[name]
      const missing = colon === ":" ? value === undefined || value === "" : value === undefined
      if (operator === "-") return missing ? operand : value!
      if (operator === "?") {
        if (missing) throw new MissingVariable(`${name}: ${operand}`)
        return value!
      }
      return value ?? ""
    }
  )

/** The environment compose gives `service` when the shell (or `.env`) holds `shell`. */
const environmentOf = (service: string, shell: Record<string, string>): Record<string, string> => {
  const compose = parse(composeFile, { merge: true }) as {
    services: Record<string, { environment: Record<string, string | number | boolean> }>
  }
  return Object.fromEntries(
    Object.entries(compose.services[service]!.environment).map(([name, value]) => [
      name,
      substitute(String(value), shell)
    ])
  )
}

/** What the server makes of an environment: its settings, or the one line a refused start prints. */
const settingsFrom = (environment: Record<string, string>) =>
  Effect.runSync(
    AppConfig.fromEnvironment.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(environment)))),
      Effect.either
    )
  )

const secret = { JWT_SECRET: "a-production-secret-of-at-least-32-bytes" }
const twilio = { TWILIO_ACCOUNT_SID: "AC1", TWILIO_AUTH_TOKEN: "token", TWILIO_FROM: "+15550000000" }
const fcm = { FCM_PROJECT_ID: "project", FCM_SERVICE_ACCOUNT_JSON: "{}" }
const consoleTrial = { SMS_PROVIDER: "console", PUSH_PROVIDER: "log" }
const instances = ["talab-1", "talab-2"]

describe("compose.yaml's providers", () => {
  it("refuses to start with no provider named, saying what to set", () => {
    for (const instance of instances) {
      expect(() => environmentOf(instance, secret)).toThrow(MissingVariable)
      expect(() => environmentOf(instance, secret)).toThrow(/^SMS_PROVIDER: set SMS_PROVIDER=twilio with TWILIO_/)
      expect(() => environmentOf(instance, { ...secret, SMS_PROVIDER: "twilio" })).toThrow(
        /^PUSH_PROVIDER: set PUSH_PROVIDER=fcm/
      )
    }
  })

  it("does not allow the console providers unless asked", () => {
    for (const instance of instances) {
      const environment = environmentOf(instance, { ...secret, ...consoleTrial })
      expect(environment).toMatchObject({ NODE_ENV: "production", ALLOW_CONSOLE_PROVIDERS: "false" })
      const refused = settingsFrom(environment)
      expect(Either.isLeft(refused)).toBe(true)
    }
  })

  it("starts with real providers, and with the console ones when the operator allows them for a trial", () => {
    for (const instance of instances) {
      const real = settingsFrom(
        environmentOf(instance, { ...secret, SMS_PROVIDER: "twilio", PUSH_PROVIDER: "fcm", ...twilio, ...fcm })
      )
      expect(Either.getOrThrow(real)).toMatchObject({
        nodeEnv: "production",
        sms: { provider: "twilio", twilio: { accountSid: "AC1" } },
        push: { provider: "fcm", fcm: { projectId: "project" } }
      })
      const trial = settingsFrom(
        environmentOf(instance, { ...secret, ...consoleTrial, ALLOW_CONSOLE_PROVIDERS: "true" })
      )
      expect(Either.getOrThrow(trial)).toMatchObject({ sms: { provider: "console" }, push: { provider: "log" } })
    }
  })

  it("names a real provider's missing account at start (empty variables from compose count as unset)", () => {
    const environment = environmentOf("talab-1", { ...secret, SMS_PROVIDER: "twilio", PUSH_PROVIDER: "fcm" })
    expect(environment.TWILIO_ACCOUNT_SID).toBe("")
    expect(Either.isLeft(settingsFrom(environment))).toBe(true)
  })
})

describe("the server started with compose's environment and console providers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talab-compose-"))
  afterEach(killStartedServers)
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("refuses in production with one line telling what to set", async () => {
    // The configuration is checked before any connection: the compose hosts (postgres, redis) are never reached.
    const { output, exited } = startServer({
      ...environmentOf("talab-1", { ...secret, ...consoleTrial }),
      DATA_DIR: dataDir
    })
    const { code } = await exited
    expect(code).toBe(1)
    const lines = output.stderr.trim().split("\n")
    expect(lines).toEqual([
      "Invalid configuration: SMS_PROVIDER: is console (messages written to the log) under NODE_ENV=production; choose a real provider or set ALLOW_CONSOLE_PROVIDERS=true"
    ])
  }, 90_000)
})
