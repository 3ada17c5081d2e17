// The first superuser comes from configuration or the CLI; it must pass the same rules as any
// new user, checked with the same schema the API uses.
import { Type } from 'typebox'

import type { AdminAccount } from '../../config.js'
import { createValidatorCompiler } from '../../shared/validation/schema-validator.js'
import { toValidationIssues } from '../../shared/validation/validation-issues.js'
import { NewUserFields } from './user-fields.js'

const NewUser = Type.Object(NewUserFields, { additionalProperties: false })

export const ADMIN_VARIABLES: Record<string, string> = {
  name: 'ADMIN_NAME',
  email: 'ADMIN_EMAIL',
  username: 'ADMIN_USERNAME',
  password: 'ADMIN_PASSWORD',
}

/**
 * Returns a one-line description of what is wrong with the account (naming each field as the
 * caller knows it), or undefined when it is valid.
 */
export function adminAccountProblem(account: AdminAccount, fieldNames = ADMIN_VARIABLES): string | undefined {
  const validate = createValidatorCompiler()({ schema: NewUser, httpPart: 'body' })
  const result = validate({ ...account })
  if (!result.error) return undefined
  return toValidationIssues(result.error, 'body')
    .map((issue) => `${fieldNames[String(issue.loc[1])] ?? String(issue.loc[1])}: ${issue.msg}`)
    .join('; ')
}
