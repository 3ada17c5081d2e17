// Pieces every page uses: loading and error states, buttons that show progress, pagers and
// confirmations. Errors are the API's own `detail`, shown in an alert.
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'

import type { SecurityEvent } from './api.js'
import { ApiError } from './api.js'

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message
  return error instanceof Error ? error.message : String(error)
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  )
}

export function Notice({ text }: { text: string | undefined }) {
  return (
    <p class="notice" role="status">
      {text ?? ''}
    </p>
  )
}

interface Loaded<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload: () => void
}

/** Loads data whenever `key` changes; `reload` runs it again (after an action). */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true })
  const [round, setRound] = useState(0)
  useEffect(() => {
    let live = true
    setState((previous) => ({ ...previous, loading: true, error: undefined }))
    load().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    )
    return () => {
      live = false
    }
    // `load` is a new function on every render; `key` says when what it loads changed.
  }, [key, round])
  return { ...state, reload: useCallback(() => setRound((value) => value + 1), []) }
}

/** Shows what is loading, what failed, or the content. */
export function Loading<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error !== undefined) return <ErrorMessage error={loaded.error} />
  if (loaded.data === undefined) {
    return (
      <p class="muted" role="status" aria-live="polite">
        Loading…
      </p>
    )
  }
  return <div aria-busy={loaded.loading}>{children(loaded.data)}</div>
}

/**
 * Runs an API action on demand: `busy` while it runs, `error` when it failed (cleared when it runs
 * again), `onDone` with its result when it succeeded.
 */
export function useAction<T>(run: () => Promise<T>, onDone?: (result: T) => void) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const start = async () => {
    setBusy(true)
    setError(undefined)
    try {
      onDone?.(await run())
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, start }
}

interface ActionProps {
  label: string
  busyLabel?: string
  run: () => Promise<unknown>
  onDone?: (result: unknown) => void
  kind?: 'primary' | 'danger' | 'plain'
  disabled?: boolean
}

/** A button that runs an API action, shows progress while it runs, and shows its error. */
export function ActionButton({ label, busyLabel = 'Working…', run, onDone, kind = 'plain', disabled = false }: ActionProps) {
  const { busy, error, start } = useAction(run, onDone)
  return (
    <span class="action">
      <button type="button" class={kind} disabled={busy || disabled} aria-busy={busy} onClick={start}>
        {busy ? busyLabel : label}
      </button>
      <ErrorMessage error={error} />
    </span>
  )
}

/** A form whose submit runs an API action, with progress and the API's error. */
export function ActionForm({ label, run, onDone, children, kind = 'primary', disabled = false }: ActionProps & { children: ComponentChildren }) {
  const { busy, error, start } = useAction(run, onDone)
  const submit = (event: Event) => {
    event.preventDefault()
    void start()
  }
  return (
    <form class="action-form" onSubmit={submit}>
      {children}
      <div class="form-actions">
        <button type="submit" class={kind} disabled={busy || disabled} aria-busy={busy}>
          {busy ? 'Working…' : label}
        </button>
      </div>
      <ErrorMessage error={error} />
    </form>
  )
}

/** A destructive action that asks first; with `phrase`, the user must type it to confirm. */
export function Confirmed({ label, question, phrase, run, onDone }: { label: string; question: string; phrase?: string; run: () => Promise<unknown>; onDone: () => void }) {
  const [asking, setAsking] = useState(false)
  const [typed, setTyped] = useState('')
  if (!asking) {
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {label}…
      </button>
    )
  }
  const id = `confirm-${label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div class="confirm" role="group" aria-label={label}>
      <p>{question}</p>
      {phrase !== undefined && (
        <p>
          <label for={id}>
            Type <strong>{phrase}</strong> to confirm
          </label>
          <input id={id} value={typed} autocomplete="off" onInput={(event) => setTyped(event.currentTarget.value)} />
        </p>
      )}
      <ActionButton label={`Yes, ${label.toLowerCase()}`} kind="danger" disabled={phrase !== undefined && typed !== phrase} run={run} onDone={onDone} />
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  )
}

export function Pager({ page, pageSize, total, to }: { page: number; pageSize: number; total: number; to: (page: number) => string }) {
  const pages = Math.max(1, Math.ceil(total / pageSize))
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={to(page - 1)}>← Previous</a> : <span class="muted">← Previous</span>}
      <span>
        Page {page} of {pages.toLocaleString()} ({total.toLocaleString()} in all)
      </span>
      {page < pages ? <a href={to(page + 1)}>Next →</a> : <span class="muted">Next →</span>}
    </nav>
  )
}

/** A table that scrolls sideways on narrow screens (and can be scrolled from the keyboard). */
export function TableFrame({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-frame" role="region" aria-label={label} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{label}</caption>
        {children}
      </table>
    </div>
  )
}

export const formatTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')

export const pageOf = (query: URLSearchParams) => Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1)

/** A security event's name, with how a login was made ("login succeeded (email code)"). */
export function EventName({ event }: { event: Pick<SecurityEvent, 'type' | 'method'> }) {
  return (
    <>
      {event.type.replace(/_/g, ' ')}
      {event.method && <span class="muted"> ({event.method.replace(/_/g, ' ')})</span>}
    </>
  )
}
