// A store that cannot be reached or cannot take bytes is an outage (503 service_unavailable, as a
// database outage is), never a 500: the request may succeed again once it is back.
import { DomainError, SERVICE_UNAVAILABLE } from '../../../shared/errors.js'

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const DISK = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO'])

export function isStoreOutage(error: unknown): boolean {
  const { code, name, $metadata } = (error ?? {}) as { code?: unknown; name?: unknown; $metadata?: { httpStatusCode?: number } }
  if (typeof code === 'string' && (NETWORK.has(code) || DISK.has(code))) return true
  if (name === 'TimeoutError' || name === 'RequestTimeout') return true
  return ($metadata?.httpStatusCode ?? 0) >= 500
}

/** Runs a store call; an outage becomes 503 `service_unavailable`, anything else is thrown as it is. */
export async function reachingStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (isStoreOutage(error)) throw new DomainError('unavailable', SERVICE_UNAVAILABLE, { code: 'service_unavailable' })
    throw error
  }
}
