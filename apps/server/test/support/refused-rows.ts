import { afterAll, beforeAll } from "vitest"
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
