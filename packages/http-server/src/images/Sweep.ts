import { SqlClient } from "@effect/sql"
import { FileStore, UNATTACHED_IMAGE_HOURS } from "@talab/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"

/** What one pass deleted. */
export interface ImageSweepReport {
  readonly unattached: number
  readonly ofWithdrawnOffers: number
}

/** A file left behind is logged, not retried: its row is gone, so nothing links to it any more. */
const removeFile = (files: FileStore["Type"], key: string) =>
  files
    .delete(key)
    .pipe(
      Effect.catchAllDefect((defect) =>
        Effect.logWarning("Images: a swept file was not removed").pipe(
          Effect.annotateLogs({ key, defect: String(defect) })
        )
      )
    )

/** Deletes image rows and then their files (a file whose row is gone is never served). */
const deleteImagesWhere = (files: FileStore["Type"], rows: ReadonlyArray<{ fileKey: string; thumbnailKey: string }>) =>
  Effect.forEach(rows, (row) => Effect.zipRight(removeFile(files, row.fileKey), removeFile(files, row.thumbnailKey)), {
    discard: true
  })

/**
 * The images nothing shows any more: attached to nothing for {@link UNATTACHED_IMAGE_HOURS} hours, or held by a
 * withdrawn offer (already answered 404). Each row is deleted in one statement, so instances sweeping at once
 * delete each row once, and then its two files.
 */
export class ImageSweep extends Effect.Service<ImageSweep>()("Images/Sweep", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const files = yield* FileStore
    type Deleted = { fileKey: string; thumbnailKey: string; holderKind: string | null }
    const runNow = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const cutoff = new Date(now - UNATTACHED_IMAGE_HOURS * 60 * 60 * 1000)
      const deleted = yield* sql<Deleted>`
        DELETE FROM images i
        WHERE (i.holder_kind IS NULL AND i.created_at <= ${cutoff})
           OR (i.holder_kind = 'offer' AND EXISTS (
                SELECT 1 FROM offers o WHERE o.id = i.holder_id AND o.status = 'withdrawn'))
        RETURNING i.file_key AS "fileKey", i.thumbnail_key AS "thumbnailKey", i.holder_kind AS "holderKind"`.pipe(
        Effect.orDie
      )
      yield* deleteImagesWhere(files, deleted)
      const report: ImageSweepReport = {
        unattached: deleted.filter((row) => row.holderKind === null).length,
        ofWithdrawnOffers: deleted.filter((row) => row.holderKind !== null).length
      }
      if (deleted.length > 0) yield* Effect.logInfo("images swept").pipe(Effect.annotateLogs({ ...report }))
      return report
    }).pipe(Effect.withSpan("imageSweep"))
    return { runNow } as const
  })
}) {}

/** How often each instance sweeps: an unattached image outlives its 24 hours by at most this. */
const SWEEP_INTERVAL = Duration.minutes(15)

/** Sweeps a minute after start, then every 15 minutes, for the life of the app; a failed pass is logged. */
export const ImageSweepJobLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const sweep = yield* ImageSweep
    yield* sweep.runNow.pipe(
      Effect.catchAllCause((cause) => Effect.logError("image sweep failed", cause)),
      Effect.delay(Duration.minutes(1)),
      Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
      Effect.forkScoped
    )
  })
)
