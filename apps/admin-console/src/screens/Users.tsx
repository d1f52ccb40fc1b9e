import type { ResponseData } from "@talab/client-sdk/types"
import { Fragment } from "preact"
import { useId, useState } from "preact/hooks"
import { useConsole } from "../context.js"
import { formatDate } from "../i18n.js"
import { href, navigate, type Route } from "../route.js"
import { ConfirmDialog, Field, Loading, Outcome, Person, StatusTag, useLoad } from "../ui.js"

type AdminUser = ResponseData<"/admin/users/{id}", "get">
type Change = "suspend" | "reinstate"

const COUNTS = ["requests", "offers", "deals", "reports_made", "reports_received"] as const

/** Suspending or reinstating a seller: a reason is required (the API keeps it in the audit log). */
const StatusChangeDialog = (props: {
  readonly change: Change
  readonly profileId: string
  readonly name: string
  readonly onDone: () => void
  readonly onCancel: () => void
}) => {
  const { client, t } = useConsole()
  const [reason, setReason] = useState("")
  const path = { params: { path: { id: props.profileId } }, body: { reason: reason.trim() } }
  return (
    <ConfirmDialog
      title={t(props.change === "suspend" ? "suspendTitle" : "reinstateTitle", { name: props.name })}
      body={t(props.change === "suspend" ? "suspendBody" : "reinstateBody")}
      confirmLabel={t(props.change)}
      onConfirm={() =>
        props.change === "suspend"
          ? client.PUT("/admin/seller-profiles/{id}/suspend", path)
          : client.PUT("/admin/seller-profiles/{id}/reinstate", path)
      }
      onDone={props.onDone}
      onCancel={props.onCancel}
    >
      <Field label={t("reasonRequired")}>
        {({ id }) => (
          <textarea
            id={id}
            rows={3}
            required
            maxLength={500}
            value={reason}
            onInput={(event) => setReason(event.currentTarget.value)}
          />
        )}
      </Field>
    </ConfirmDialog>
  )
}

/** A user as the admin sees them: account, seller profile, counts, and suspend or reinstate when it applies. */
const UserCard = ({ user, reload }: { user: AdminUser; reload: () => void }) => {
  const { t, language } = useConsole()
  const [changing, setChanging] = useState<Change | undefined>(undefined)
  const [outcome, setOutcome] = useState<string | undefined>(undefined)
  const profile = user.seller_profile
  const name = user.deleted ? t("deletedAccount") : (profile?.business_name ?? user.name ?? user.phone_number ?? "")
  const headingId = useId()
  return (
    <article class="card" aria-labelledby={headingId} data-user={user.id}>
      <h2 id={headingId}>
        <Person user={user} />
      </h2>
      <Outcome message={outcome} />
      <dl class="facts">
        <dt>{t("language")}</dt>
        <dd>{user.language === "ar" ? "العربية" : "English"}</dd>
        <dt>{t("memberSince")}</dt>
        <dd>{formatDate(language, user.created_at)}</dd>
        <dt>{t("admin")}</dt>
        <dd>{user.is_admin ? t("yes") : t("no")}</dd>
        <dt>{t("sellerProfile")}</dt>
        <dd>
          {profile === null ? (
            t("noSellerProfile")
          ) : (
            <>
              <bdi>{profile.business_name}</bdi> <StatusTag status={profile.status} />
              {profile.rejection_reason == null ? null : (
                <p class="small">{t("rejectionReasonShown", { reason: profile.rejection_reason })}</p>
              )}
            </>
          )}
        </dd>
      </dl>
      <h3>{t("counts")}</h3>
      <dl class="facts">
        {COUNTS.map((count) => (
          <Fragment key={count}>
            <dt>{t(`count_${count}`)}</dt>
            <dd>{user.counts[count]}</dd>
          </Fragment>
        ))}
      </dl>
      <div class="row">
        {profile?.status === "approved" ? (
          <button type="button" onClick={() => setChanging("suspend")}>
            {t("suspend")}
          </button>
        ) : null}
        {profile?.status === "suspended" ? (
          <button type="button" onClick={() => setChanging("reinstate")}>
            {t("reinstate")}
          </button>
        ) : null}
        {profile === null ? null : (
          <a class="button" href={href("audit", { target_id: profile.id })}>
            {t("auditOfTarget")}
          </a>
        )}
      </div>
      {changing === undefined || profile === null ? null : (
        <StatusChangeDialog
          change={changing}
          profileId={profile.id}
          name={name}
          onCancel={() => {
            setChanging(undefined)
            reload()
          }}
          onDone={() => {
            setOutcome(t(changing === "suspend" ? "suspended" : "reinstated", { name }))
            setChanging(undefined)
            reload()
          }}
        />
      )}
    </article>
  )
}

/** The user an id names (`#/users/<id>`). */
const UserById = ({ id }: { id: string }) => {
  const { client } = useConsole()
  const { result, reload } = useLoad(
    () => client.GET("/admin/users/{id}", { params: { path: { id } } }).then(({ data }) => data),
    [id]
  )
  return result.state === "ready" ? (
    <UserCard user={result.data} reload={reload} />
  ) : (
    <Loading result={result} reload={reload} />
  )
}

/** The user with a phone number (`#/users?phone=`): exact, so zero or one. */
const UserByPhone = ({ phone }: { phone: string }) => {
  const { client, t } = useConsole()
  const { result, reload } = useLoad(
    () => client.GET("/admin/users", { params: { query: { phone } } }).then(({ data }) => data.users),
    [phone]
  )
  if (result.state !== "ready") return <Loading result={result} reload={reload} />
  const [user] = result.data
  return user === undefined ? (
    <p role="status">{t("noUserWithPhone", { phone: `\u2068${phone}\u2069` })}</p>
  ) : (
    <UserCard user={user} reload={reload} />
  )
}

/** Find a user by their full phone number, or open one by id from another screen. */
export const Users = ({ route }: { route: Route }) => {
  const { t } = useConsole()
  const id = route.segments[1]
  const phone = route.query.get("phone") ?? ""
  const [typed, setTyped] = useState(phone)
  return (
    <section aria-labelledby="users-heading">
      <h1 id="users-heading" tabIndex={-1}>
        {t("usersHeading")}
      </h1>
      <search>
        <form
          class="toolbar"
          onSubmit={(event) => {
            event.preventDefault()
            navigate("users", { phone: typed.trim() })
          }}
        >
          <Field label={t("phoneLabel")} hint={t("phoneSearchHint")}>
            {({ id: inputId, describedBy }) => (
              <input
                id={inputId}
                type="tel"
                dir="ltr"
                required
                aria-describedby={describedBy}
                value={typed}
                onInput={(event) => setTyped(event.currentTarget.value)}
              />
            )}
          </Field>
          <div class="field">
            <button type="submit" class="primary">
              {t("lookup")}
            </button>
          </div>
        </form>
      </search>
      {id !== undefined ? <UserById id={id} /> : phone !== "" ? <UserByPhone phone={phone} /> : null}
    </section>
  )
}
