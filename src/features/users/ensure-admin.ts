// The configured administrator (ADMIN_EMAIL, ADMIN_USERNAME, ADMIN_PASSWORD): made, found or
// promoted at start, after the migrations; a value the rules refuse stops the start, naming its
// variable.
import type { AdminAccount } from '../../config.js'
import type { Logger } from '../../logger.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import { ConfigError } from '../../shared/settings.js'
import { ADMIN_VARIABLES, adminAccountProblem } from './admin-account.js'
import type { UserService } from './users.service.js'

export async function ensureAdmin(logger: Logger, users: UserService, admin: AdminAccount, promoteExisting: boolean): Promise<void> {
  const problem = adminAccountProblem(admin)
  if (problem) throw new ConfigError(`invalid administrator account: ${problem}`)
  let result
  try {
    result = await users.ensureSuperuser(admin, { promoteExisting })
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'conflict') throw new ConfigError(`ADMIN_USERNAME/ADMIN_EMAIL: ${error.message}`)
    // A field rule names its field (a reserved address is ADMIN_EMAIL's); the password's are ADMIN_PASSWORD's.
    if (error instanceof RuleViolation && error.field in ADMIN_VARIABLES) throw new ConfigError(`${ADMIN_VARIABLES[error.field]}: ${error.message}`)
    if (error instanceof DomainError && (error.kind === 'unprocessable' || error.code === 'password_breached')) throw new ConfigError(`ADMIN_PASSWORD: ${error.message}`)
    if (error instanceof DomainError && error.code === 'email_domain_blocked') throw new ConfigError(`ADMIN_EMAIL: ${error.message}`)
    throw error
  }
  const { user, outcome } = result
  const fields = { userId: user.id, username: user.username }
  if (outcome === 'promoted') logger.warn(fields, 'promoted an existing account to superuser (ADMIN_PROMOTE_EXISTING=true)')
  else logger.info(fields, outcome === 'created' ? 'created superuser' : 'superuser present')
}
