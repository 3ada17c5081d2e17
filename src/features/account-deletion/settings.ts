// The account-deletion slice's settings (docs/configuration.md, Privacy).
import type { Env } from '../../shared/settings.js'
import { integer, linkTemplate, oneOf } from '../../shared/settings.js'

export interface AccountDeletionSettings {
  /** ACCOUNT_DELETION_GRACE_DAYS: how long an account its owner deleted can be taken back. */
  graceDays: number
  /** ACCOUNT_DELETION_CONTENT: the posts go with the account, or stay under a "Deleted user" author. */
  content: 'delete' | 'anonymize'
  /** ACCOUNT_DELETION_CANCEL_URL: the frontend's page for the mailed cancel link ({token}); the service's own page when unset. */
  cancelUrl: string | undefined
}

export function accountDeletionSettings(env: Env): AccountDeletionSettings {
  return {
    graceDays: integer(env, 'ACCOUNT_DELETION_GRACE_DAYS', 14, 1, 365),
    content: oneOf(env, 'ACCOUNT_DELETION_CONTENT', ['delete', 'anonymize'] as const, 'delete'),
    cancelUrl: linkTemplate(env, 'ACCOUNT_DELETION_CANCEL_URL'),
  }
}
