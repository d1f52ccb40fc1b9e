export * as MemoryFileStore from "./adapters/files/MemoryFileStore.js"
export * as MemoryRateLimiter from "./adapters/ratelimit/MemoryRateLimiter.js"
export * as RedisRateLimiter from "./adapters/ratelimit/RedisRateLimiter.js"
export { SessionEvents } from "./auth/SessionEvents.js"
export {
  AppConfig,
  type AppSettings,
  describeConfigError,
  isConfigError,
  normalizeLogLevel
} from "./config/AppConfig.js"
export { parseTestPhoneNumbers, type TestPhoneNumber } from "./config/TestPhoneNumbers.js"
export { DatabaseOptions, databaseOptionsFromUrl } from "./db/Database.js"
export { MigratedDatabaseLayer } from "./db/Migrations.js"
export { runCli } from "./ops/Cli.js"
export { ExpiryJob, type ExpiryReport } from "./requests/Expiry.js"
export { fileStoreLayer } from "./server/Adapters.js"
export { AppLive, DatabaseFromConfig, NodeServerLive, ProductionServerLive } from "./server/App.js"
export { ApiLive, HttpAppLive } from "./server/Server.js"
