import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"

/*
 * Docker is not installed where CI runs, and base images cannot be pulled: this checks what can be checked
 * without them. The compose file parses and wires two instances behind one address on PostgreSQL and Redis;
 * the Dockerfile's final stage holds only the deployed folder and runs it as a non-root user. (The deployed
 * folder itself starting with plain node is .ci/deployed-server.mjs.)
 */
const read = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8")

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml"), { merge: true }) as {
    services: Record<string, any>
  }
  const services = compose.services

  it("runs PostgreSQL, Redis, a migration step, two Talab instances and a load balancer", () => {
    expect(Object.keys(services).sort()).toEqual(["lb", "migrate", "postgres", "redis", "talab-1", "talab-2"])
    expect(services.postgres.image).toMatch(/^postgres:/)
    expect(services.redis.image).toMatch(/^redis:/)
    expect(services.migrate.command).toEqual(["node", "dist/cli.js", "migrate"])
  })

  it("gives both instances the shared state: one database, Redis, one JWT key, avatars in the database", () => {
    for (const name of ["talab-1", "talab-2"]) {
      const instance = services[name]
      expect(instance.build).toBe(".")
      expect(instance.environment).toMatchObject({
        NODE_ENV: "production",
        DATABASE_URL: expect.stringMatching(/^postgres:\/\/[^@]+@postgres:5432\//),
        REDIS_URL: "redis://redis:6379",
        JWT_SECRET: expect.stringContaining("JWT_SECRET"),
        FILE_STORE: "database",
        TRUST_PROXY: "true",
        MIGRATE_ON_START: "false"
      })
      expect(instance.depends_on).toMatchObject({
        postgres: { condition: "service_healthy" },
        redis: { condition: "service_healthy" },
        migrate: { condition: "service_completed_successfully" }
      })
    }
  })

  it("serves each instance's metrics on a port of its own, published on the host's loopback only", () => {
    const published = ["talab-1", "talab-2"].map((name) => {
      const instance = services[name]
      expect(instance.environment.METRICS_PORT).toBe("9464")
      expect(instance.environment.OTEL_EXPORTER_OTLP_ENDPOINT).toContain("OTEL_EXPORTER_OTLP_ENDPOINT")
      expect(instance.ports).toHaveLength(1)
      return instance.ports[0] as string
    })
    expect(published).toEqual(["127.0.0.1:9101:9464", "127.0.0.1:9102:9464"])
  })

  it("puts one address in front of both, passing WebSocket upgrades", () => {
    expect(services.lb.ports).toEqual(["8080:8080"])
    const mount = (services.lb.volumes as Array<string>).find((volume) => volume.includes("nginx.conf"))!
    const nginx = read(mount.split(":")[0]!.replace(/^\.\//, ""))
    expect(nginx).toContain("server talab-1:3000")
    expect(nginx).toContain("server talab-2:3000")
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/)
    expect(nginx).toMatch(/proxy_set_header Connection \$connection_upgrade;/)
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For/)
  })
})

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile")
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "))

  it("builds in one stage and runs only the deployed folder in the last, on a Node LTS image", () => {
    expect(dockerfile).toMatch(/ARG NODE_VERSION=(22|24)\b/)
    expect(dockerfile).toMatch(/pnpm --filter @talab\/server deploy --prod \/out/)
    expect(finalStage).toMatch(/^\nFROM node:\$\{NODE_VERSION\}-\S+ AS runtime/)
    const copies = finalStage.split("\n").filter((line) => line.startsWith("COPY"))
    expect(copies).toEqual(["COPY --from=build --chown=node:node /out /app"])
  })

  it("runs as a non-root user, checks /health/live, stops on SIGTERM, and starts with node", () => {
    expect(finalStage).toMatch(/\nUSER node\n/)
    expect(finalStage).toMatch(/HEALTHCHECK [^\n]*\\\n[^\n]*\/health\/live/)
    expect(finalStage).toMatch(/\nSTOPSIGNAL SIGTERM\n/)
    expect(finalStage).toMatch(/\nCMD \["node", "dist\/main.js"\]\n/)
  })

  it("leaves node_modules, builds and local data out of the build context", () => {
    const ignored = read(".dockerignore").split("\n")
    for (const entry of ["**/node_modules", "**/dist", "**/data", ".git", ".env"]) expect(ignored).toContain(entry)
  })
})
