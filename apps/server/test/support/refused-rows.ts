import type { LogRecorder } from "@talab/testkit"
import { afterAll, beforeAll, expect } from "vitest"
import { runSql } from "./postgres.js"

/**
 * For a suite: the database refuses the rows inserted into `table` whose `column` is `marker`, as a constraint or
 * a full disk would, so a test can put one bad write among good ones. Set up before the suite's tests, removed
 * after them.
 */
export const refuseMarkedRows = (databaseUrl: () => string, table: string, column: string, marker = "refuse me") => {
  const name = `refuse_marked_${table}`
  beforeAll(async () => {
    await runSql(databaseUrl(), (s) =>
      s.unsafe(`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.${column} = '${marker}' THEN RAISE EXCEPTION 'refused for the test'; END IF;
          RETURN NEW;
        END $$`)
    )
    await runSql(databaseUrl(), (s) =>
      s.unsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`)
    )
  })
  afterAll(async () => {
    await runSql(databaseUrl(), (s) => s.unsafe(`DROP TRIGGER IF EXISTS ${name} ON ${table}`)).catch(() => {})
  })
}

/**
 * Runs `run` while the database sleeps `seconds` after inserting each row of `table` whose `column` is `marker`,
 * inside the inserting statement: a batch holding that row keeps the locks it took for the rows before it, so a
 * test can make two batches overlap at a chosen point. The trigger is removed afterwards, whatever `run` did.
 */
export const withSlowMarkedRows = async <A>(
  databaseUrl: string,
  {
    column,
    marker = "slow",
    seconds = 0.5,
    table
  }: { table: string; column: string; marker?: string; seconds?: number },
  run: () => Promise<A>
): Promise<A> => {
  const name = `slow_marked_${table}`
  await runSql(databaseUrl, (s) =>
    s.unsafe(`
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.${column} = '${marker}' THEN PERFORM pg_sleep(${seconds}); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER ${name} AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}();`)
  )
  try {
    return await run()
  } finally {
    await runSql(databaseUrl, (s) => s.unsafe(`DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}()`))
  }
}

/** How many times the servers logged a write batch going back to one write at a time. */
export const fallbacksLogged = (logs: ReadonlyArray<LogRecorder>) =>
  logs.flatMap((recorder) => recorder.lines).filter((line) => line.message.startsWith("Write batch failed as a whole"))
    .length

/**
 * Runs `tryOnce`, which sends two batches and says whether each was gathered whole, until one try was, at most
 * three times: on a loaded machine writes sent together can miss each other and go in more batches, which tests
 * nothing. Fails when no try was gathered whole, and when any batch fell back meanwhile on any of the servers
 * (each logs its own).
 */
export const expectGatheredWithoutFallback = async (
  logs: ReadonlyArray<LogRecorder>,
  writes: string,
  tryOnce: () => Promise<boolean>
) => {
  const before = fallbacksLogged(logs)
  let gathered = false
  for (let attempt = 0; attempt < 3 && !gathered; attempt++) gathered = await tryOnce()
  expect(fallbacksLogged(logs)).toBe(before)
  expect(gathered, `in three tries, the ${writes} sent together were never gathered into two whole batches`).toBe(true)
}
