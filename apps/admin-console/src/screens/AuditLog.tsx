import type { ResponseData } from "@talab/client-sdk/types"
import { useState } from "preact/hooks"
import { useConsole } from "../context.js"
import { AUDIT_ACTIONS, auditActionLabel, formatDate } from "../i18n.js"
import { href, navigate, pageOf, type Route } from "../route.js"
import { Field, Loading, Pager, PER_PAGE, useLoad } from "../ui.js"

type Entry = ResponseData<"/admin/audit-log", "get">["entries"][number]

const FILTERS = ["action", "actor_id", "target_id", "from", "to"] as const
type Filter = (typeof FILTERS)[number]

/** A `datetime-local` value (the admin's local time) as the API's ISO 8601 instant; undefined when empty or bad. */
const instantOf = (local: string) => {
  if (local === "") return undefined
  const date = new Date(local)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** An instant of the route back into the input's local form. */
const localOf = (iso: string) => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ""
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 16)
}

const valueText = (value: unknown) => (value === null ? "∅" : Array.isArray(value) ? value.join(", ") : String(value))

/** What an entry changed, one line per field: `status: pending → approved`. */
const Changes = ({ entry }: { entry: Entry }) => {
  const { t } = useConsole()
  const fields = Object.entries(entry.changes)
  if (fields.length === 0) return <span class="muted">{t("none")}</span>
  return (
    <ul class="changes">
      {fields.map(([field, change]) => (
        // Field names and stored values are written left to right, in either language.
        <li key={field} dir="ltr">
          {t("fieldChange", { field, before: valueText(change.before), after: valueText(change.after) })}
        </li>
      ))}
    </ul>
  )
}

/** Who acted: an admin (their name then, and a link to them) or an operator's machine. */
const Actor = ({ entry }: { entry: Entry }) => {
  const { t } = useConsole()
  const actor = entry.actor
  if (actor.type === "operator") return <span>{t("operator", { host: actor.host })}</span>
  return <a href={href(`users/${actor.id}`)}>{actor.name ?? actor.id}</a>
}

/** What the action was done to: a report or a user links to its screen, anything else shows its id. */
const Target = ({ entry }: { entry: Entry }) => {
  const target = entry.target
  if (target === null) return <span>—</span>
  const label = (
    <>
      <span class="muted">{target.type}</span> <code>{target.id}</code>
    </>
  )
  if (target.type === "report") return <a href={href(`reports/${target.id}`)}>{label}</a>
  if (target.type === "user") return <a href={href(`users/${target.id}`)}>{label}</a>
  return <span>{label}</span>
}

/** The audit log, newest first, filtered by action, admin, target and time, a page at a time. */
export const AuditLog = ({ route }: { route: Route }) => {
  const { client, t, language } = useConsole()
  const page = pageOf(route.query)
  const applied = Object.fromEntries(FILTERS.map((name) => [name, route.query.get(name) ?? ""])) as Record<
    Filter,
    string
  >
  const [draft, setDraft] = useState({ ...applied, from: localOf(applied.from), to: localOf(applied.to) })
  const { result, reload } = useLoad(() => {
    const query = Object.fromEntries(Object.entries(applied).filter(([, value]) => value !== ""))
    return client
      .GET("/admin/audit-log", { params: { query: { ...query, page, per_page: PER_PAGE } } })
      .then(({ data }) => data)
  }, [route.query.toString()])
  const set = (name: Filter) => (event: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [name]: event.currentTarget.value })

  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading" tabIndex={-1}>
        {t("auditHeading")}
      </h1>
      <form
        class="toolbar"
        aria-label={t("filters")}
        onSubmit={(event) => {
          event.preventDefault()
          navigate("audit", {
            action: draft.action,
            actor_id: draft.actor_id.trim(),
            target_id: draft.target_id.trim(),
            from: instantOf(draft.from),
            to: instantOf(draft.to)
          })
        }}
      >
        <Field label={t("actionFilter")}>
          {({ id }) => (
            <select id={id} value={draft.action} onChange={set("action")}>
              <option value="">{t("anyAction")}</option>
              {AUDIT_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {auditActionLabel(language, action)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t("actorFilter")}>
          {({ id }) => <input id={id} dir="ltr" value={draft.actor_id} onInput={set("actor_id")} />}
        </Field>
        <Field label={t("targetFilter")}>
          {({ id }) => <input id={id} dir="ltr" value={draft.target_id} onInput={set("target_id")} />}
        </Field>
        <Field label={t("fromFilter")}>
          {({ id }) => <input id={id} type="datetime-local" value={draft.from} onInput={set("from")} />}
        </Field>
        <Field label={t("toFilter")}>
          {({ id }) => <input id={id} type="datetime-local" value={draft.to} onInput={set("to")} />}
        </Field>
        <div class="field row">
          <button type="submit" class="primary">
            {t("applyFilters")}
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft({ action: "", actor_id: "", target_id: "", from: "", to: "" })
              navigate("audit")
            }}
          >
            {t("clearFilters")}
          </button>
        </div>
      </form>
      {result.state !== "ready" ? (
        <Loading result={result} reload={reload} />
      ) : result.data.entries.length === 0 ? (
        <p class="muted" role="status">
          {t("noEntries")}
        </p>
      ) : (
        <>
          <table>
            <caption class="visually-hidden">{t("auditHeading")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("when")}</th>
                <th scope="col">{t("actor")}</th>
                <th scope="col">{t("actionFilter")}</th>
                <th scope="col">{t("target")}</th>
                <th scope="col">{t("changes")}</th>
              </tr>
            </thead>
            <tbody>
              {result.data.entries.map((entry) => (
                <tr key={entry.id} data-entry={entry.id}>
                  <td>{formatDate(language, entry.created_at)}</td>
                  <td>
                    <Actor entry={entry} />
                  </td>
                  <th scope="row">
                    {auditActionLabel(language, entry.action)}
                    <p class="small muted">
                      <code>{entry.action}</code>
                    </p>
                  </th>
                  <td>
                    <Target entry={entry} />
                  </td>
                  <td>
                    <Changes entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager pagination={result.data.pagination} onPage={(next) => navigate("audit", { ...applied, page: next })} />
        </>
      )}
    </section>
  )
}
