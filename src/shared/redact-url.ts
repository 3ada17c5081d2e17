// The one way a request's URL is written to a log, a trace or a metric: the path as it came, and
// the query with the value of every parameter not known to be harmless replaced. Mailed links
// carry live tokens in their query (`/account/email-login?token=`, reset, verification, stream
// tickets, provider codes and states); an allow-list, not a deny-list, so that a parameter added
// next year is hidden until someone decides it is safe to show.
const SHOWN_PARAMETERS: ReadonlySet<string> = new Set([
  'age',
  'author_id',
  'cursor',
  'is_active',
  'items_per_page',
  'last_event_id',
  'limit',
  'name',
  'page',
  'search',
  'sort',
  'status',
  'type',
  'user_id',
  'visibility',
])

export const REDACTED = 'REDACTED'

/** `url` (a path with an optional query, as a request names it) with every query value not on the allow-list replaced. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?')
  if (at === -1) return url
  const path = url.slice(0, at)
  const query = url.slice(at + 1)
  if (query === '') return url
  const parts = query.split('&').map((part) => {
    const equals = part.indexOf('=')
    const rawName = equals === -1 ? part : part.slice(0, equals)
    let name: string
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '))
    } catch {
      return REDACTED
    }
    if (equals === -1) return SHOWN_PARAMETERS.has(name) ? part : rawName
    return SHOWN_PARAMETERS.has(name) ? part : `${rawName}=${REDACTED}`
  })
  return `${path}?${parts.join('&')}`
}
