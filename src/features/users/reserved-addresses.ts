// Addresses no account may hold: those under the `.invalid` top-level domain (RFC 2606 reserves
// it; nothing is ever delivered there), which the service uses for accounts of its own. Refused
// wherever an address comes to an account: sign-up in every version, an email change, a provider
// sign-in and the configured superuser.
import { RuleViolation } from '../../shared/errors.js'

export const RESERVED_ADDRESS = 'Addresses under the reserved .invalid domain cannot be used'

/** Whether the address's domain is reserved (a trailing dot and letter case change nothing). */
export function isReservedAddress(email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase().replace(/\.+$/, '')
  return domain === 'invalid' || domain.endsWith('.invalid')
}

/** 422 on `field` for a reserved address. */
export function assertUsableAddress(email: string, field = 'email'): void {
  if (isReservedAddress(email)) throw new RuleViolation(field, RESERVED_ADDRESS, 'value_error.email')
}
