import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"

/**
 * CORS for browsers: the allowed origins of CORS_ORIGINS (`*` allows any). A predicate, because with a
 * list of one the framework would name that origin in every response, whoever asked.
 */
export const corsFor = (origins: ReadonlyArray<string>) =>
  HttpApiBuilder.middlewareCors({
    ...(origins.includes("*") ? {} : { allowedOrigins: (origin: string) => origins.includes(origin) }),
    allowedHeaders: ["authorization", "content-type", "accept-language", "x-request-id", "idempotency-key"],
    exposedHeaders: [
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "retry-after",
      "x-request-id",
      "idempotent-replayed"
    ],
    maxAge: 600
  })
