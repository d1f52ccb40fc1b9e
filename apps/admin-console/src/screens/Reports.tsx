import type { ResponseData } from "@talab/client-sdk/types"
import { useId, useState } from "preact/hooks"
import { useConsole } from "../context.js"
import { formatDate, type MessageKey } from "../i18n.js"
import { href, navigate, pageOf, type Route } from "../route.js"
import { ConfirmDialog, Field, Loading, Outcome, Pager, PER_PAGE, Person, StatusTag, useLoad } from "../ui.js"

type Report = ResponseData<"/admin/reports", "get">["reports"][number]
type Status = "pending" | "resolved" | "dismissed"
type Action = "dismiss" | "warn" | "suspend_seller"

const STATUSES: ReadonlyArray<Status> = ["pending", "resolved", "dismissed"]
const ACTIONS: ReadonlyArray<Action> = ["dismiss", "warn", "suspend_seller"]

/** `?status=` of the route: pending (the work to do) unless another state or `all` is asked for. */
const statusOf = (query: URLSearchParams): Status | "all" => {
  const asked = query.get("status")
  return asked === "all" || STATUSES.includes(asked as Status) ? (asked as Status | "all") : "pending"
}

/** The resolve dialog: the action (each with what it does), notes, confirmed before it is sent. */
export const ResolveDialog = (props: {
  readonly report: { readonly id: string; readonly name: string }
  readonly onDone: (action: Action) => void
  readonly onCancel: () => void
}) => {
  const { client, t } = useConsole()
  const [action, setAction] = useState<Action>("warn")
  const [notes, setNotes] = useState("")
  const legendId = useId()
  return (
    <ConfirmDialog
      title={t("resolveTitle", { name: props.report.name })}
      confirmLabel={t("resolve")}
      onConfirm={() =>
        client.PUT("/admin/reports/{id}/resolve", {
          params: { path: { id: props.report.id } },
          body: { action, ...(notes.trim() === "" ? {} : { notes: notes.trim() }) }
        })
      }
      onDone={() => props.onDone(action)}
      onCancel={props.onCancel}
    >
      <fieldset aria-labelledby={legendId}>
        <legend id={legendId}>{t("actionLabel")}</legend>
        {ACTIONS.map((choice) => (
          <label key={choice} class="choice">
            <input
              type="radio"
              name="action"
              value={choice}
              checked={action === choice}
              onChange={() => setAction(choice)}
            />
            <span>
              <strong>{t(`action_${choice}`)}</strong>
              <small class="muted"> — {t(`actionHelp_${choice}`)}</small>
            </span>
          </label>
        ))}
      </fieldset>
      <Field label={t("notesLabel")}>
        {({ id }) => (
          <textarea id={id} rows={3} maxLength={2000} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
        )}
      </Field>
    </ConfirmDialog>
  )
}

/** Reports, filtered by status, a page at a time; a pending one is resolved from its row. */
export const Reports = ({ route }: { route: Route }) => {
  const { client, t, language } = useConsole()
  const status = statusOf(route.query)
  const page = pageOf(route.query)
  const { result, reload } = useLoad(
    () =>
      client
        .GET("/admin/reports", {
          params: { query: { page, per_page: PER_PAGE, ...(status === "all" ? {} : { status }) } }
        })
        .then(({ data }) => data),
    [status, page]
  )
  const [resolving, setResolving] = useState<Report | undefined>(undefined)
  const [outcome, setOutcome] = useState<string | undefined>(undefined)
  const nameOf = (report: Report) => report.reported_user.name ?? report.reported_user.phone_number ?? t("deletedUser")

  return (
    <section aria-labelledby="reports-heading">
      <h1 id="reports-heading" tabIndex={-1}>
        {t("reportsHeading")}
      </h1>
      <div class="toolbar">
        <Field label={t("statusFilter")}>
          {({ id }) => (
            <select
              id={id}
              value={status}
              onChange={(event) => navigate("reports", { status: event.currentTarget.value })}
            >
              {STATUSES.map((choice) => (
                <option key={choice} value={choice}>
                  {t(`status_${choice}`)}
                </option>
              ))}
              <option value="all">{t("allStatuses")}</option>
            </select>
          )}
        </Field>
      </div>
      <Outcome message={outcome} />
      {result.state !== "ready" ? (
        <Loading result={result} reload={reload} />
      ) : result.data.reports.length === 0 ? (
        <p class="muted">{t("noneYet")}</p>
      ) : (
        <>
          <table>
            <caption class="visually-hidden">{t("reportsHeading")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("reportedUser")}</th>
                <th scope="col">{t("reporter")}</th>
                <th scope="col">{t("reason")}</th>
                <th scope="col">{t("status")}</th>
                <th scope="col">{t("reportedAt")}</th>
                <th scope="col">{t("actions")}</th>
              </tr>
            </thead>
            <tbody>
              {result.data.reports.map((report) => (
                <tr key={report.id} data-report={report.id}>
                  <th scope="row">
                    <Person user={report.reported_user} />
                  </th>
                  <td>
                    <Person user={report.reporter} />
                  </td>
                  <td>
                    {t(`reason_${report.reason}` as MessageKey)}
                    {report.description == null ? null : <p class="muted small">{report.description}</p>}
                  </td>
                  <td>
                    <StatusTag status={report.status} />
                    {report.action == null ? null : <p class="small">{t(`action_${report.action}` as MessageKey)}</p>}
                  </td>
                  <td>{formatDate(language, report.created_at)}</td>
                  <td>
                    <div class="actions">
                      <a
                        class="button"
                        href={href(`reports/${report.id}`)}
                        aria-label={`${t("openReport")}: ${nameOf(report)}`}
                      >
                        {t("openReport")}
                      </a>
                      {report.status === "pending" ? (
                        <button
                          type="button"
                          aria-label={`${t("resolve")}: ${nameOf(report)}`}
                          onClick={() => setResolving(report)}
                        >
                          {t("resolve")}
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager pagination={result.data.pagination} onPage={(next) => navigate("reports", { status, page: next })} />
        </>
      )}
      {resolving === undefined ? null : (
        <ResolveDialog
          report={{ id: resolving.id, name: nameOf(resolving) }}
          onCancel={() => {
            setResolving(undefined)
            // The dialog may have shown that another admin resolved it meanwhile: show the list as it is now.
            reload()
          }}
          onDone={(action) => {
            setOutcome(t("resolved", { name: nameOf(resolving), action: t(`action_${action}`) }))
            setResolving(undefined)
            reload()
          }}
        />
      )}
    </section>
  )
}
