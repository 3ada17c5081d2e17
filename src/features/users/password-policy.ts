// Passwords that guessing tries first are refused (NIST SP 800-63B 5.1.1.2): the 49,000 most
// common ones from zxcvbn-ts's maintained list, and ones equal to the account's own username or
// email. Length is the schema's business (8-128). The list is loaded when the first password is
// checked rather than as the service starts: most starts check none.
import { RuleViolation } from '../../shared/errors.js'

export const PASSWORD_TOO_COMMON = 'Password is too common'

let commonPasswords: Promise<ReadonlySet<string>> | undefined

const loadCommonPasswords = (): Promise<ReadonlySet<string>> =>
  (commonPasswords ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()))))

/** Throws a 422 naming `field` (the request's name for the password: `password`, `new_password`). */
export async function assertAcceptablePassword(password: string, account: { username: string; email: string }, field = 'password'): Promise<void> {
  const candidate = password.toLowerCase()
  const email = account.email.toLowerCase()
  const own = [account.username.toLowerCase(), email, email.split('@')[0]]
  if ((await loadCommonPasswords()).has(candidate) || own.includes(candidate)) {
    throw new RuleViolation(field, PASSWORD_TOO_COMMON, 'password_too_common')
  }
}
