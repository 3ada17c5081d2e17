// The organizations slice's settings (docs/configuration.md, Organizations).
import type { Env, RequestLimit } from '../../shared/settings.js'
import { integer, linkTemplate, requestLimit } from '../../shared/settings.js'

export interface OrgSettings {
  /** ORGS_PER_USER: how many organizations one user may own. */
  perUser: number
  /** INVITATION_DAYS: how long an invitation's link works. */
  invitationDays: number
  /** INVITATION_RATE_LIMIT: invitations per organization and per inviter. */
  invitationRateLimit: RequestLimit
  /** INVITATION_URL: the app's page for an invitation link, with {token}; the service's own page unless set. */
  invitationUrl: string | undefined
}

export function orgSettings(env: Env): OrgSettings {
  return {
    perUser: integer(env, 'ORGS_PER_USER', 20, 1, 10_000),
    invitationDays: integer(env, 'INVITATION_DAYS', 7, 1, 90),
    invitationRateLimit: requestLimit(env, 'INVITATION_RATE_LIMIT', { limit: 20, periodSeconds: 3600 }),
    invitationUrl: linkTemplate(env, 'INVITATION_URL'),
  }
}
