import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"

/*
 * Docker is not installed where CI runs: this checks that the compose file parses and wires two instances behind
 * one address on PostgreSQL and Redis. The image itself is built and signed in through by .ci/image (buildah).
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
