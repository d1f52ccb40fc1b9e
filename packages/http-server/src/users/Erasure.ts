import { SqlClient } from "@effect/sql"
import { AccountDeletion, FileStore, Offers, Requests, type User, UserRepo } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionEvents } from "../auth/SessionEvents.js"
import { REQUEST_LISTS } from "../readcache/ReadCache.js"
import { makeReadsChanged } from "../readcache/ReadsChanged.js"
import { avatarKeyOf } from "./AvatarUrl.js"

/*
 * Deleting an account (DELETE /users/me, `talab users delete`): core's AccountDeletion with what only this server
 * stores beside the ports, then what can only follow the commit (closing the sockets, removing the files).
 */

/** The keys, in the file store, of the files an account leaves behind: the avatar and every photo's two files. */
const filesOf = (deleted: {
  readonly avatarUrl: string | null
  readonly imageFiles: ReadonlyArray<string>
}): ReadonlyArray<string> => {
  const avatar = avatarKeyOf(deleted.avatarUrl)
  return avatar === undefined ? deleted.imageFiles : [avatar, ...deleted.imageFiles]
}

/** Deletes accounts: the same steps whoever asks, the user or an operator. */
export class AccountErasure extends Effect.Service<AccountErasure>()("Users/AccountErasure", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const deletion = yield* AccountDeletion
    const files = yield* FileStore
    const sessionEvents = yield* SessionEvents
    const users = yield* UserRepo
    const reads = yield* makeReadsChanged

    /**
     * Every photo the user uploaded, wherever it is attached (their requests, their offers, their messages in
     * others' conversations): the rows go in the transaction, the files after the commit. Lists showing a
     * request's thumbnail are dropped from the read cache; its detail is tagged with the user already.
     */
    const deleteImages = (userId: string, files: Array<string>) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ fileKey: string; thumbnailKey: string; holderKind: string | null }>`
          DELETE FROM images WHERE owner_id = ${userId}
          RETURNING file_key AS "fileKey", thumbnail_key AS "thumbnailKey", holder_kind AS "holderKind"`
        for (const row of rows) files.push(row.fileKey, row.thumbnailKey)
        if (rows.some((row) => row.holderKind === "request")) yield* reads.changed([REQUEST_LISTS])
      })

    /** What the user holds here alone and core's ports do not know: alert rules, matches, idempotency records. */
    const serverRows = (userId: string, files: Array<string>) =>
      Effect.gen(function* () {
        yield* deleteImages(userId, files)
        yield* sql`DELETE FROM seller_alert_rules WHERE seller_user_id = ${userId}`
        yield* sql`DELETE FROM seller_alert_settings WHERE seller_user_id = ${userId}`
        yield* sql`DELETE FROM request_matches WHERE seller_user_id = ${userId}`
        yield* sql`DELETE FROM idempotency_keys WHERE scope = ${`user:${userId}`}`
      }).pipe(Effect.orDie)

    /**
     * The account's deletion, in the caller's transaction when there is one (or its own); `OpenDealsExist` else.
     * `alsoInside` commits with it (the operator's audit entry).
     */
    const deleteInTransaction = <R = never>(user: User, alsoInside: Effect.Effect<void, never, R> = Effect.void) =>
      Effect.suspend(() => {
        const imageFiles: Array<string> = []
        return Effect.map(
          deletion.deleteAccount(user, Effect.zipRight(serverRows(user.id, imageFiles), alsoInside)),
          (deleted) => ({ ...deleted, imageFiles })
        )
      })

    /** A file left behind is logged, not retried: the account is gone either way. */
    const removeFile = (key: string) =>
      files
        .delete(key)
        .pipe(
          Effect.catchAllDefect((defect) =>
            Effect.logWarning("Users: a deleted account's file was not removed").pipe(
              Effect.annotateLogs({ key, defect: String(defect) })
            )
          )
        )

    /**
     * After the commit: every instance drops the user's sessions and closes their sockets (4401), and the files go
     * from the store.
     */
    const afterCommit = (userId: string, deleted: Effect.Effect.Success<ReturnType<typeof deleteInTransaction>>) =>
      Effect.gen(function* () {
        yield* Effect.forEach(deleted.endedSessionIds, sessionEvents.revoked, { discard: true })
        yield* sessionEvents.userChanged(userId)
        yield* Effect.forEach(filesOf(deleted), removeFile, { discard: true })
      })

    /** The account of a number (normalised already), for the operator's command. */
    const findByPhone = (phoneNumber: string) => users.findByPhone(phoneNumber)

    return { deleteInTransaction, afterCommit, findByPhone } as const
  })
}) {}

/**
 * The erasure with core's workflows it runs on (the owner's close and withdraw); the ports, RequestSettings,
 * FileStore and SessionEvents come from below.
 */
export const AccountErasureLive = AccountErasure.Default.pipe(
  Layer.provide(AccountDeletion.Default.pipe(Layer.provide([Requests.Default, Offers.Default])))
)
