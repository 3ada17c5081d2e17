// The identities slice's settings: OpenID Connect providers and GitHub (docs/configuration.md).
import type { Env } from '../../shared/settings.js'
import { ConfigError, read, url } from '../../shared/settings.js'

/** An OpenID Connect provider to sign in with (OIDC_PROVIDERS and OIDC_<NAME>_*). */
export interface OidcProviderConfig {
  /** Lowercase name in paths and security events (`/api/v2/auth/{name}/authorize`, `oidc:{name}`). */
  name: string
  /** The issuer, found by discovery (`/.well-known/openid-configuration`). */
  issuer: string
  clientId: string
  clientSecret: string
  scopes: string
  label: string
}

/** GitHub sign-in (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET; GITHUB_URL and GITHUB_API_URL for GitHub Enterprise). */
export interface GitHubConfig {
  clientId: string
  clientSecret: string
  /** Where the OAuth endpoints live: https://github.com, or a GitHub Enterprise Server. */
  url: string
  /** The REST API: https://api.github.com, or https://HOST/api/v3. */
  apiUrl: string
}

/** Issuers a provider name stands for when OIDC_<NAME>_ISSUER is not set. */
const OIDC_PRESETS: Record<string, { issuer: string; label: string }> = {
  google: { issuer: 'https://accounts.google.com', label: 'Google' },
  gitlab: { issuer: 'https://gitlab.com', label: 'GitLab' },
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** OIDC_PROVIDERS=google,corp and, per name, OIDC_<NAME>_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _SCOPES, _LABEL. */
export function oidcProvidersOf(env: Env): OidcProviderConfig[] {
  const names = (read(env, 'OIDC_PROVIDERS') ?? '').split(',').map((name) => name.trim()).filter(Boolean)
  const seen = new Set<string>()
  return names.map((name) => {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new ConfigError(`OIDC_PROVIDERS names must be lowercase letters, digits and dashes (up to 32), got "${name}"`)
    if (seen.has(name)) throw new ConfigError(`OIDC_PROVIDERS lists "${name}" twice`)
    seen.add(name)
    const prefix = `OIDC_${name.toUpperCase().replaceAll('-', '_')}_`
    const preset = OIDC_PRESETS[name]
    const issuer = url(env, `${prefix}ISSUER`, ['http:', 'https:']) ?? preset?.issuer
    if (!issuer) throw new ConfigError(`${prefix}ISSUER is required: "${name}" is not a preset (${Object.keys(OIDC_PRESETS).join(', ')})`)
    const parsed = new URL(issuer)
    if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) throw new ConfigError(`${prefix}ISSUER must use https (http only on localhost), got "${issuer}"`)
    const clientId = read(env, `${prefix}CLIENT_ID`)
    const clientSecret = read(env, `${prefix}CLIENT_SECRET`)
    if (!clientId || !clientSecret) throw new ConfigError(`${prefix}CLIENT_ID and ${prefix}CLIENT_SECRET are required for the "${name}" provider`)
    const scopes = read(env, `${prefix}SCOPES`) ?? 'openid email profile'
    if (!scopes.split(/\s+/).includes('openid')) throw new ConfigError(`${prefix}SCOPES must include openid, got "${scopes}"`)
    return { name, issuer, clientId, clientSecret, scopes, label: read(env, `${prefix}LABEL`) ?? preset?.label ?? name }
  })
}

export function githubSettings(env: Env, oidcNames: string[]): GitHubConfig | undefined {
  const clientId = read(env, 'GITHUB_CLIENT_ID')
  const clientSecret = read(env, 'GITHUB_CLIENT_SECRET')
  if (!clientId && !clientSecret) return undefined
  if (!clientId || !clientSecret) throw new ConfigError('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET go together')
  if (oidcNames.includes('github')) throw new ConfigError('OIDC_PROVIDERS cannot name "github": GitHub signs in through GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET')
  const endpoint = (name: string, fallback: string) => {
    const value = (url(env, name, ['http:', 'https:']) ?? fallback).replace(/\/+$/, '')
    if (value.startsWith('http:') && !LOOPBACK_HOSTS.has(new URL(value).hostname)) throw new ConfigError(`${name} must use https (http only on localhost), got "${value}"`)
    return value
  }
  return { clientId, clientSecret, url: endpoint('GITHUB_URL', 'https://github.com'), apiUrl: endpoint('GITHUB_API_URL', 'https://api.github.com') }
}
