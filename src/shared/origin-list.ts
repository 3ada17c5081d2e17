// A list of browser origins, as CORS_ORIGINS and AUTH_REDIRECT_ORIGINS name them: exact origins,
// and hosts whose every port is allowed (`http://localhost:*`).
export interface OriginList {
  exact: string[]
  /** Origins without a port (`http://localhost`): any port of them matches. */
  anyPort: string[]
}

const escapeForRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The list as patterns: exact strings, and one expression per any-port host (what @fastify/cors matches). */
export function originPatterns(origins: OriginList): (string | RegExp)[] {
  return [...origins.exact, ...origins.anyPort.map((prefix) => new RegExp(`^${escapeForRegExp(prefix)}(:\\d{1,5})?$`))]
}

/** Whether an origin (scheme://host[:port], as a browser sends it) is on the list. */
export function originMatcher(origins: OriginList): (origin: string) => boolean {
  const patterns = originPatterns(origins)
  return (origin) => patterns.some((allowed) => (typeof allowed === 'string' ? allowed === origin : allowed.test(origin)))
}

/**
 * Parses `https://app.example.com,http://localhost:*` into a list; undefined names the first
 * entry that is not an origin (scheme http or https, host, optional port, nothing else).
 */
export function parseOriginList(entries: string[]): { list: OriginList } | { invalid: string } {
  const exact: string[] = []
  const anyPort: string[] = []
  for (const entry of entries) {
    const wildcardPort = entry.endsWith(':*')
    const plain = wildcardPort ? entry.slice(0, -2) : entry
    let parsed: URL | undefined
    try {
      parsed = new URL(plain)
    } catch {
      parsed = undefined
    }
    const origin = parsed?.origin
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || plain.includes('*') || origin !== plain.toLowerCase() || (wildcardPort && parsed.port !== '')) {
      return { invalid: entry }
    }
    ;(wildcardPort ? anyPort : exact).push(parsed.origin)
  }
  return { list: { exact, anyPort } }
}
