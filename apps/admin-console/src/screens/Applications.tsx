import type { ResponseData } from "@talab/client-sdk/types"
import { useState } from "preact/hooks"
import { useConsole } from "../context.js"
import { formatDate } from "../i18n.js"
import { navigate, pageOf, type Route } from "../route.js"
import { ConfirmDialog, Field, Loading, Outcome, Pager, PER_PAGE, Person, useLoad } from "../ui.js"

type Profile = ResponseData<"/admin/seller-profiles/pending", "get">["profiles"][number]

/** The pending seller applications, newest first, each approved or rejected after a confirmation. */
export const Applications = ({ route }: { route: Route }) => {
  const { client, t, language } = useConsole()
  const page = pageOf(route.query)
  const { result, reload } = useLoad(
    () =>
      client
        .GET("/admin/seller-profiles/pending", { params: { query: { page, per_page: PER_PAGE } } })
        .then(({ data }) => data),
    [page]
  )
  const [deciding, setDeciding] = useState<{ readonly verdict: "approve" | "reject"; readonly profile: Profile }>()
  const [outcome, setOutcome] = useState<string | undefined>(undefined)

  const [reason, setReason] = useState("")

  const decide = (verdict: "approve" | "reject", profile: Profile) => {
    const path = { params: { path: { id: profile.id } } }
    if (verdict === "approve") return client.PUT("/admin/seller-profiles/{id}/approve", path)
    // The reason is optional: without one, the applicant is told no more than that they were rejected.
    const given = reason.trim()
    return client.PUT("/admin/seller-profiles/{id}/reject", given === "" ? path : { ...path, body: { reason: given } })
  }
  const open = (verdict: "approve" | "reject", profile: Profile) => {
    setReason("")
    setDeciding({ verdict, profile })
  }

  return (
    <section aria-labelledby="applications-heading">
      <h1 id="applications-heading" tabIndex={-1}>
        {t("applicationsHeading")}
      </h1>
      <Outcome message={outcome} />
      {result.state !== "ready" ? (
        <Loading result={result} reload={reload} />
      ) : result.data.profiles.length === 0 ? (
        <p class="muted">{t("noneYet")}</p>
      ) : (
        <>
          <table>
            <caption class="visually-hidden">{t("applicationsHeading")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("business")}</th>
                <th scope="col">{t("district")}</th>
                <th scope="col">{t("applicant")}</th>
                <th scope="col">{t("appliedAt")}</th>
                <th scope="col">{t("actions")}</th>
              </tr>
            </thead>
            <tbody>
              {result.data.profiles.map((profile) => (
                <tr key={profile.id} data-profile={profile.id}>
                  <th scope="row">
                    <bdi>{profile.business_name}</bdi>
                    {profile.bio == null ? null : <p class="muted small">{profile.bio}</p>}
                  </th>
                  <td>
                    <bdi>{profile.location_district}</bdi>
                  </td>
                  <td>
                    <Person user={profile.user} />
                  </td>
                  <td>{formatDate(language, profile.created_at)}</td>
                  <td>
                    <div class="actions">
                      <button
                        type="button"
                        aria-label={`${t("approve")}: ${profile.business_name}`}
                        onClick={() => open("approve", profile)}
                      >
                        {t("approve")}
                      </button>
                      <button
                        type="button"
                        aria-label={`${t("reject")}: ${profile.business_name}`}
                        onClick={() => open("reject", profile)}
                      >
                        {t("reject")}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager pagination={result.data.pagination} onPage={(next) => navigate("applications", { page: next })} />
        </>
      )}
      {deciding === undefined ? null : (
        <ConfirmDialog
          title={t(deciding.verdict === "approve" ? "approveTitle" : "rejectTitle", {
            name: deciding.profile.business_name
          })}
          body={t(deciding.verdict === "approve" ? "approveBody" : "rejectBody")}
          confirmLabel={t(deciding.verdict)}
          onConfirm={() => decide(deciding.verdict, deciding.profile)}
          onCancel={() => {
            setDeciding(undefined)
            // The dialog may have shown that someone else decided meanwhile: show the list as it is now.
            reload()
          }}
          onDone={() => {
            setOutcome(
              t(deciding.verdict === "approve" ? "approved" : "rejected", { name: deciding.profile.business_name })
            )
            setDeciding(undefined)
            reload()
          }}
        >
          {deciding.verdict === "reject" ? (
            <Field label={t("reasonOptional")}>
              {({ id }) => (
                <textarea
                  id={id}
                  rows={3}
                  maxLength={500}
                  value={reason}
                  onInput={(event) => setReason(event.currentTarget.value)}
                />
              )}
            </Field>
          ) : null}
        </ConfirmDialog>
      )}
    </section>
  )
}
