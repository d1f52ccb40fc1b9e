import { SqlClient } from "@effect/sql"
import type { ImageHolderKind } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { textArrayLiteral } from "../db/PgArrays.js"

/** What a view shows of an attached image before its URLs are signed. */
export interface ShownImage {
  readonly id: string
  readonly width: number
  readonly height: number
}

// A request's detail builds its photos the same way, in its function (migration 0029).
const shownImageJson = "json_build_object('id', i.id, 'width', i.width, 'height', i.height)"

/** SQL of a column with the first photo of the request whose id is `requestId`, as a `ShownImage` (or null). */
export const requestFirstPhotoColumn = (requestId: string) =>
  `(SELECT ${shownImageJson} FROM images i
    WHERE i.holder_id = ${requestId} AND i.holder_kind = 'request' ORDER BY i.position LIMIT 1)`

/** An image as its file route needs it: its files, and whether what holds it still shows it. */
export interface ServedImage {
  readonly fileKey: string
  readonly thumbnailKey: string
  readonly contentType: string
  readonly holderKind: ImageHolderKind | null
  /** The status of the offer holding it, when an offer does. */
  readonly offerStatus: string | null
}

/** Read models of images: the photos of the things views show, and the image a file URL names. */
export class ImageQueries extends Effect.Service<ImageQueries>()("Images/Queries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * The images attached to each of `holderIds` (of one kind), in their order; a holder with none is absent. A
     * withdrawn offer shows none: its photos died with it.
     */
    const photosOf = (kind: ImageHolderKind, holderIds: ReadonlyArray<string>) =>
      holderIds.length === 0
        ? Effect.succeed(new Map<string, Array<ShownImage>>())
        : sql<ShownImage & { readonly holderId: string }>`
            SELECT i.id, i.width, i.height, i.holder_id AS "holderId" FROM images i
            WHERE i.holder_id = ANY(${textArrayLiteral([...new Set(holderIds)])}::uuid[]) AND i.holder_kind = ${kind}
              AND NOT EXISTS (SELECT 1 FROM offers o WHERE i.holder_kind = 'offer' AND o.id = i.holder_id
                              AND o.status = 'withdrawn')
            ORDER BY i.holder_id, i.position`.pipe(
            Effect.map((rows) => {
              const byHolder = new Map<string, Array<ShownImage>>()
              for (const { holderId, ...image } of rows) {
                const list = byHolder.get(holderId)
                if (list === undefined) byHolder.set(holderId, [image])
                else list.push(image)
              }
              return byHolder
            }),
            Effect.orDie
          )

    const forServing = (id: string) =>
      sql<ServedImage>`
        SELECT i.file_key AS "fileKey", i.thumbnail_key AS "thumbnailKey", i.content_type AS "contentType",
               i.holder_kind AS "holderKind", o.status AS "offerStatus"
        FROM images i
        LEFT JOIN offers o ON i.holder_kind = 'offer' AND o.id = i.holder_id
        WHERE i.id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    return { photosOf, forServing } as const
  })
}) {}
