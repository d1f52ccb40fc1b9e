import type { ComponentChildren, TargetedSubmitEvent } from "preact"
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks"
import { errorText } from "./api.js"
import { useConsole } from "./context.js"
import type { MessageKey } from "./i18n.js"

/** The `pagination` of every list the API answers. */
export interface Pagination {
  readonly current_page: number
  readonly per_page: number
  readonly total: number
  readonly last_page: number
}

/** The items a list screen shows per page. */
export const PER_PAGE = 20

type Load<T> =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly error: string }
  | { readonly state: "ready"; readonly data: T }

/**
 * Data a screen reads from the API, read again when `deps` change or on `reload()`. An answer that arrives after
 * a newer load started is dropped, so a quick page turn never shows the older page.
 */
export const useLoad = <T,>(load: () => Promise<T>, deps: ReadonlyArray<unknown>) => {
  const { language } = useConsole()
  const [result, setResult] = useState<Load<T>>({ state: "loading" })
  const generation = useRef(0)
  const reload = useCallback(() => {
    const mine = ++generation.current
    setResult((previous) => (previous.state === "ready" ? previous : { state: "loading" }))
    load().then(
      (data) => mine === generation.current && setResult({ state: "ready", data }),
      (error: unknown) =>
        mine === generation.current && setResult({ state: "failed", error: errorText(language, error) })
    )
    // The caller names what the load depends on.
  }, deps)
  useEffect(reload, [reload])
  return { result, reload }
}

/** What a load shows until its data is there: a polite "loading", or the API's error with a way to try again. */
export const Loading = ({ result, reload }: { result: Load<unknown>; reload: () => void }) => {
  const { t } = useConsole()
  if (result.state === "loading")
    return (
      <p class="muted" role="status">
        {t("loading")}
      </p>
    )
  if (result.state === "failed")
    return (
      <div class="notice notice-error" role="alert">
        <span aria-hidden="true">⚠ </span>
        {result.error}{" "}
        <button type="button" onClick={reload}>
          {t("retry")}
        </button>
      </div>
    )
  return null
}

/** The outcome of the last action: announced to screen readers, marked by an icon and words, not colour alone. */
export const Outcome = ({ message }: { message: string | undefined }) => (
  <div role="status" class={message === undefined ? "notice-slot" : "notice notice-ok"}>
    {message === undefined ? null : (
      <>
        <span aria-hidden="true">✓ </span>
        {message}
      </>
    )}
  </div>
)

/** A state as words in a bordered tag; its colour only repeats what the words say. */
export const StatusTag = ({ status }: { status: string }) => {
  const { t } = useConsole()
  return <span class={`tag tag-${status}`}>{t(`status_${status}` as MessageKey)}</span>
}

/** Previous and next page, with where we are; hidden when everything fits on one page. */
export const Pager = ({ pagination, onPage }: { pagination: Pagination; onPage: (page: number) => void }) => {
  const { t } = useConsole()
  const { current_page: page, last_page: pages, total } = pagination
  return (
    <nav class="pager" aria-label={t("pagination")}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t("previousPage")}
      </button>
      <span>{t("pageOf", { page, pages, total })}</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t("nextPage")}
      </button>
    </nav>
  )
}

/**
 * A modal confirmation (the platform's <dialog>: focus moves in and is kept there, Escape cancels, focus goes
 * back to the button that opened it). The action runs on Confirm; its failure is shown in the dialog with the
 * API's message, which stays open so the admin reads it, then cancels or tries again.
 */
export const ConfirmDialog = (props: {
  readonly title: string
  readonly body?: string
  readonly confirmLabel: string
  readonly onConfirm: () => Promise<unknown>
  readonly onDone: () => void
  readonly onCancel: () => void
  readonly children?: ComponentChildren
}) => {
  const { t, language } = useConsole()
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const titleId = useId()
  const bodyId = useId()
  useEffect(() => {
    const element = dialog.current
    element?.showModal()
    return () => element?.close()
  }, [])
  const submit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await props.onConfirm()
      props.onDone()
    } catch (failure) {
      setError(errorText(language, failure))
      setBusy(false)
    }
  }
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      aria-describedby={props.body === undefined ? undefined : bodyId}
      onCancel={(event) => {
        event.preventDefault()
        if (!busy) props.onCancel()
      }}
    >
      <form onSubmit={submit}>
        <h2 id={titleId}>{props.title}</h2>
        {props.body === undefined ? null : <p id={bodyId}>{props.body}</p>}
        {props.children}
        {error === undefined ? null : (
          <p class="notice notice-error" role="alert">
            <span aria-hidden="true">⚠ </span>
            {error}
          </p>
        )}
        <div class="dialog-actions">
          <button type="submit" class="primary" disabled={busy}>
            {props.confirmLabel}
          </button>
          <button type="button" disabled={busy} onClick={props.onCancel}>
            {t("cancel")}
          </button>
        </div>
      </form>
    </dialog>
  )
}

/** A labelled field: the label names the control, a hint describes it. */
export const Field = (props: {
  readonly label: string
  readonly hint?: string
  readonly children: (ids: { id: string; describedBy: string | undefined }) => ComponentChildren
}) => {
  const id = useId()
  const hintId = useId()
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({ id, describedBy: props.hint === undefined ? undefined : hintId })}
      {props.hint === undefined ? null : (
        <small id={hintId} class="muted">
          {props.hint}
        </small>
      )}
    </div>
  )
}

/** A person as the admin identifies them: the name (or that there is none) and the phone number. */
export const Person = (props: {
  readonly user: { readonly name: string | null; readonly phone_number?: string | null; readonly deleted?: boolean }
}) => {
  const { t } = useConsole()
  const { name, phone_number: phone, deleted } = props.user
  return (
    <span class="person">
      <span>{deleted === true ? t("deletedUser") : (name ?? t("unnamed"))}</span>
      {phone == null ? null : (
        <bdi class="phone" dir="ltr">
          {phone}
        </bdi>
      )}
    </span>
  )
}
