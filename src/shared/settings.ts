// Reading one setting from the environment, validated: a bad value stops the process at start
// with one line naming the variable. src/config.ts is the only caller that holds the
// environment; the slices' settings.ts files read their own settings through these, given it.
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>

export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name)
  if (raw === undefined) return fallback
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  }
  return value
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name)
  if (raw === undefined) return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
  }
  return raw as T
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = read(env, name)
  if (raw === undefined) return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')})`)
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}, got "${parsed.protocol}"`)
  }
  return raw
}

export interface RequestLimit {
  limit: number
  periodSeconds: number
}

export function requestLimit(env: Env, name: string, fallback: RequestLimit): RequestLimit {
  const raw = read(env, name)
  if (raw === undefined) return fallback
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(raw)
  const limit = Number(match?.[1])
  const periodSeconds = Number(match?.[2])
  if (!match || limit < 1 || limit > 1_000_000_000 || periodSeconds < 1 || periodSeconds > 86_400 * 31) {
    throw new ConfigError(`${name} must look like 300/60 (requests / seconds), got "${raw}"`)
  }
  return { limit, periodSeconds }
}

export function linkTemplate(env: Env, name: string): string | undefined {
  const value = url(env, name, ['http:', 'https:'])
  if (value !== undefined && !value.includes('{token}')) throw new ConfigError(`${name} must contain {token}, got "${value}"`)
  return value
}
