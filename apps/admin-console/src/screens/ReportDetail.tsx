import type { ResponseData } from "@talab/client-sdk/types"
import { useState } from "preact/hooks"
import { useConsole } from "../context.js"
import { formatDate, type MessageKey } from "../i18n.js"
import { href } from "../route.js"
import { Loading, Outcome, Person, StatusTag, useLoad } from "../ui.js"
import { ResolveDialog } from "./Reports.js"

type Detail = ResponseData<"/admin/reports/{id}", "get">

/** Who sent a message, as the admin knows them: a party of the report (buyer or seller of the deal), or an id. */
const senderOf = (detail: Detail, senderId: string, t: ReturnType<typeof useConsole>["t"]) => {
  const role = detail.deal?.buyer_id === senderId ? t("buyer") : detail.deal?.seller_id === senderId ? t("seller") : ""
  const person =
    detail.reporter.id === senderId
      ? detail.reporter
      : detail.reported_user.id === senderId
        ? detail.reported_user
        : null
  const name = person === null ? senderId : person.deleted ? t("deletedUser") : (person.name ?? t("unnamed"))
  return role === "" ? name : `${name} (${role})`
}

/**
 * One report with its context: who reported whom (the reported user's seller profile and how many reports they
 * have had), the deal, and the deal's conversation as it was written. The API records the read in the audit log.
 */
export const ReportDetail = ({ id }: { id: string }) => {
  const { client, t, language } = useConsole()
  const { result, reload } = useLoad(
    () => client.GET("/admin/reports/{id}", { params: { path: { id } } }).then(({ data }) => data),
    [id]
  )
  const [resolving, setResolving] = useState(false)
  const [outcome, setOutcome] = useState<string | undefined>(undefined)
  if (result.state !== "ready")
    return (
      <section>
        <h1 tabIndex={-1}>{t("reportsHeading")}</h1>
        <Loading result={result} reload={reload} />
      </section>
    )
  const report = result.data
  const reported = report.reported_user
  const name = reported.deleted ? t("deletedUser") : (reported.name ?? reported.phone_number ?? t("unnamed"))
  return (
    <section aria-labelledby="report-heading">
      <p>
        <a href={href("reports")}>{t("backToReports")}</a>
      </p>
      <h1 id="report-heading" tabIndex={-1}>
        {t("reportHeading", { name })}
      </h1>
      <Outcome message={outcome} />
      <dl class="facts">
        <dt>{t("status")}</dt>
        <dd>
          <StatusTag status={report.status} />
          {report.action == null ? null : <span> {t(`action_${report.action}` as MessageKey)}</span>}
        </dd>
        <dt>{t("reason")}</dt>
        <dd>{t(`reason_${report.reason}` as MessageKey)}</dd>
        <dt>{t("description")}</dt>
        <dd>{report.description ?? t("noDescription")}</dd>
        <dt>{t("reportedAt")}</dt>
        <dd>{formatDate(language, report.created_at)}</dd>
        {report.notes == null ? null : (
          <>
            <dt>{t("notes")}</dt>
            <dd>{report.notes}</dd>
          </>
        )}
      </dl>
      {report.status === "pending" ? (
        <p>
          <button type="button" class="primary" onClick={() => setResolving(true)}>
            {t("resolve")}
          </button>
        </p>
      ) : null}
      <h2>{t("reportContext")}</h2>
      <div class="cards">
        <div class="card">
          <h3>{t("reportedUser")}</h3>
          <Person user={reported} />
          <dl class="facts">
            <dt>{t("sellerProfile")}</dt>
            <dd>
              {reported.seller_profile === null ? (
                t("noSellerProfile")
              ) : (
                <>
                  <bdi>{reported.seller_profile.business_name}</bdi>{" "}
                  <StatusTag status={reported.seller_profile.status} />
                </>
              )}
            </dd>
            <dt>{t("reportsReceived")}</dt>
            <dd>{reported.reports_received}</dd>
          </dl>
          <a href={href(`users/${reported.id}`)}>{t("seeUser")}</a>
        </div>
        <div class="card">
          <h3>{t("reporter")}</h3>
          <Person user={report.reporter} />
          <p>
            <a href={href(`users/${report.reporter.id}`)}>{t("seeUser")}</a>
          </p>
        </div>
        <div class="card">
          <h3>{t("deal")}</h3>
          {report.deal === null ? (
            <p>{t("noDeal")}</p>
          ) : (
            <dl class="facts">
              <dt>{t("dealStatus")}</dt>
              <dd>{t(`deal_${report.deal.status}` as MessageKey)}</dd>
              <dt>{t("dealMadeAt")}</dt>
              <dd>{formatDate(language, report.deal.created_at)}</dd>
            </dl>
          )}
        </div>
      </div>
      <h2>{t("conversationHeading")}</h2>
      {report.deal === null ? (
        <p class="muted">{t("noConversation")}</p>
      ) : report.messages.length === 0 ? (
        <p class="muted">{t("noMessages")}</p>
      ) : (
        <ol class="messages" aria-label={t("conversationHeading")}>
          {report.messages.map((message) => (
            <li key={message.id}>
              <strong>{senderOf(report, message.sender_id, t)}</strong>{" "}
              <small class="muted">{formatDate(language, message.created_at)}</small>
              <p dir="auto">{message.message_text}</p>
            </li>
          ))}
        </ol>
      )}
      <p>
        <a href={href("audit", { target_id: report.id })}>{t("auditOfTarget")}</a>
      </p>
      {resolving ? (
        <ResolveDialog
          report={{ id: report.id, name }}
          onCancel={() => {
            setResolving(false)
            reload()
          }}
          onDone={(action) => {
            setOutcome(t("resolved", { name, action: t(`action_${action}`) }))
            setResolving(false)
            reload()
          }}
        />
      ) : null}
    </section>
  )
}
