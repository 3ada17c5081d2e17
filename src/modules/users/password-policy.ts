// Passwords that guessing tries first are refused (NIST SP 800-63B 5.1.1.2): the 49,000 most
// common ones from zxcvbn-ts's maintained list, and ones equal to the account's own username or
// email. Length is the schema's business (8-128).
import { dictionary } from '@zxcvbn-ts/language-common'

import { RuleViolation } from '../../shared/errors.js'

export const PASSWORD_TOO_COMMON = 'Password is too common'

const COMMON_PASSWORDS: ReadonlySet<string> = new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()))

/** Throws a 422 naming `field` (the request's name for the password: `password`, `new_password`). */
export function assertAcceptablePassword(password: string, account: { username: string; email: string }, field = 'password'): void {
  const candidate = password.toLowerCase()
  const email = account.email.toLowerCase()
  const own = [account.username.toLowerCase(), email, email.split('@')[0]]
  if (COMMON_PASSWORDS.has(candidate) || own.includes(candidate)) {
    throw new RuleViolation(field, PASSWORD_TOO_COMMON, 'password_too_common')
  }
}
