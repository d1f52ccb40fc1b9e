import type { S3Client } from "@aws-sdk/client-s3"
import { FileStore, type StoredFile } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { requireSafeFileKey } from "./LocalFileStore.js"

/** Where a {@link layer} keeps its files. Credentials come from the AWS SDK's default chain (env, profile, role). */
export interface S3FileStoreOptions {
  readonly bucket: string
  readonly region: string
  /** An S3-compatible endpoint (MinIO, R2, …); when set, requests use path-style URLs. */
  readonly endpoint?: string | undefined
  /** Folder inside the bucket, e.g. `avatars/`. */
  readonly prefix?: string
}

const isNotFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } }
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404
}

/**
 * A {@link FileStore} in an S3 bucket. The SDK is loaded only when this store is chosen: it is large, and on
 * Node 20 it prints a deprecation warning when loaded.
 */
const make = (options: S3FileStoreOptions): Effect.Effect<FileStore["Type"]> =>
  Effect.gen(function* () {
    const s3 = yield* Effect.promise(() => import("@aws-sdk/client-s3"))
    const client: S3Client = new s3.S3Client({
      region: options.region,
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint, forcePathStyle: true } : {})
    })
    const objectKey = (key: string) => `${options.prefix ?? ""}${key}`

    const put = (key: string, file: StoredFile) =>
      requireSafeFileKey(key).pipe(
        Effect.zipRight(
          Effect.tryPromise(() =>
            client.send(
              new s3.PutObjectCommand({
                Bucket: options.bucket,
                Key: objectKey(key),
                Body: file.bytes,
                ContentType: file.contentType
              })
            )
          )
        ),
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("S3FileStore.put", { attributes: { key } })
      )

    const get = (key: string) =>
      requireSafeFileKey(key).pipe(
        Effect.zipRight(
          Effect.tryPromise({
            try: async () => {
              const object = await client.send(new s3.GetObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }))
              const bytes = await object.Body!.transformToByteArray()
              return Option.some<StoredFile>({ bytes, contentType: object.ContentType ?? "application/octet-stream" })
            },
            catch: (error) => error
          })
        ),
        Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<StoredFile>())),
        Effect.orDie,
        Effect.withSpan("S3FileStore.get", { attributes: { key } })
      )

    const remove = (key: string) =>
      requireSafeFileKey(key).pipe(
        Effect.zipRight(
          Effect.tryPromise(() =>
            client.send(new s3.DeleteObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }))
          )
        ),
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("S3FileStore.delete", { attributes: { key } })
      )

    return FileStore.of({ put, get, delete: remove })
  })

/** {@link FileStore} in S3 or an S3-compatible store. */
export const layer = (options: S3FileStoreOptions): Layer.Layer<FileStore> => Layer.effect(FileStore, make(options))
