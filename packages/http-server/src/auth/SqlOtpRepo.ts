import { SqlClient, SqlSchema } from "@effect/sql"
import { OTP_MAX_ATTEMPTS, OtpChallenge, OtpRepo, snakeCaseKeys } from "@talab/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** A one-time code as stored: the entity under its column names. */
const OtpChallengeRow = snakeCaseKeys(OtpChallenge.fields)

export const SqlOtpRepo = Layer.effect(
  OtpRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const replace = SqlSchema.void({
      Request: OtpChallengeRow,
      execute: (row) => sql`
        INSERT INTO otp_challenges ${sql.insert(row)}
        ON CONFLICT (phone_number) DO UPDATE SET
          code_hash = excluded.code_hash,
          expires_at = excluded.expires_at,
          attempts = excluded.attempts,
          consumed_at = excluded.consumed_at`
    })
    // The conflicting row is locked whether or not the WHERE lets it be replaced, so racing requests queue here.
    const issueUnlessLive = SqlSchema.findAll({
      Request: Schema.Struct({ row: OtpChallengeRow, now: Schema.DateFromSelf }),
      Result: OtpChallengeRow,
      execute: ({ row, now }) => sql`
        INSERT INTO otp_challenges ${sql.insert(row)}
        ON CONFLICT (phone_number) DO UPDATE SET
          code_hash = excluded.code_hash,
          expires_at = excluded.expires_at,
          attempts = excluded.attempts,
          consumed_at = excluded.consumed_at
        WHERE otp_challenges.consumed_at IS NOT NULL
          OR otp_challenges.attempts >= ${OTP_MAX_ATTEMPTS}
          OR otp_challenges.expires_at <= ${now}
        RETURNING *`
    })
    const find = SqlSchema.single({
      Request: Schema.String,
      Result: OtpChallengeRow,
      execute: (phoneNumber) => sql`SELECT * FROM otp_challenges WHERE phone_number = ${phoneNumber}`
    })
    const lock = SqlSchema.findOne({
      Request: Schema.String,
      Result: OtpChallengeRow,
      execute: (phoneNumber) => sql`SELECT * FROM otp_challenges WHERE phone_number = ${phoneNumber} FOR UPDATE`
    })
    const save = SqlSchema.void({
      Request: OtpChallengeRow,
      execute: (row) =>
        sql`UPDATE otp_challenges SET ${sql.update(row, ["phone_number"])} WHERE phone_number = ${row.phone_number}`
    })

    return OtpRepo.of({
      replace: (challenge) => replace(challenge).pipe(Effect.orDie),
      // A statement of its own for the live row, so it reads what the conflict saw, committed or not at our start.
      issueUnlessLive: (challenge, now) =>
        issueUnlessLive({ row: challenge, now }).pipe(
          Effect.flatMap(([issued]) => (issued === undefined ? find(challenge.phoneNumber) : Effect.succeed(issued))),
          Effect.orDie
        ),
      lock: (phoneNumber) => lock(phoneNumber).pipe(Effect.orDie),
      save: (challenge) => save(challenge).pipe(Effect.orDie)
    })
  })
)
