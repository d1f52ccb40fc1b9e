import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/*
 * The write-side repositories, one per aggregate, live in their feature's `Repo.ts`; what they share is
 * stated here, beside the transaction they run in. `lock` reads a row for update inside the current
 * transaction, so two racing transitions on it are serialised. Read models (list and detail views)
 * are queries of the adapter, not ports.
 *
 * Every id a repository is given is a UUID: the embedder decodes ids where they come in (paths, bodies,
 * frames, tokens) and answers a malformed one as it answers an unknown one, so an adapter need not guard
 * its store's uuid type against other strings.
 *
 * Lock order. A transaction that locks rows of several aggregates takes them in this order, so no two
 * wait on each other (deadlock):
 *   report -> deal -> seller profile -> buy request -> offers -> conversation
 * e.g. resolve: report, seller profile, the seller's pending offers; rate: deal, seller profile; offer:
 * seller profile (shared), request; accept: seller profile of the offer (shared), request, its offers;
 * withdraw and close: request, offers; message: conversation. A transition that skips a level keeps the
 * order of the rest. Rows of one kind are locked in one statement, or one row at a time.
 * Inserting a request, or changing its status, also updates the totals of requests kept per status,
 * category and city, in the same transaction: those are locked last, after everything above, until the
 * transaction ends.
 */

/** Runs an effect atomically: every repository call inside it commits together or not at all. */
export class Transactor extends Context.Tag("@talab/core/Transactor")<
  Transactor,
  { readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {}
