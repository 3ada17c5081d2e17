// Organizations: teams with roles, invitations by verified email, a per-organization second-factor rule.
import { mailedLink } from '../../shared/mailed-link.js'
import { type Feature, routes } from '../feature.js'
import { adminOrgsRoutes } from './admin-orgs.v2.routes.js'
import { orgsErrorCodes } from './errors.js'
import { invitationsRoutes, receivedInvitationsRoutes } from './invitations.v2.routes.js'
import { orgsFunctions, orgsReadTargets } from './orgs.repository.js'
import { OrgService } from './orgs.service.js'
import orgsRoutes from './orgs.v2.routes.js'
import { type OrgSettings, orgSettings } from './settings.js'

interface OrgsServices {
  /** Organizations: members with roles, invitations by verified email. */
  orgs: OrgService
}

export const orgsFeature: Feature<OrgsServices, { orgs: OrgSettings }> = {
  name: 'orgs',
  settings: (env) => ({ orgs: orgSettings(env) }),
  errors: orgsErrorCodes,
  needs: ['one-time-secrets', 'users', 'mfa', 'mail', 'security-events', 'rate-limits', 'change-events', 'content-fields'],
  create({ config, bind, unitOfWork, peers }) {
    const orgs = new OrgService({
      repository: bind(orgsFunctions, orgsReadTargets),
      unitOfWork,
      secrets: peers.oneTimeSecrets,
      users: peers.users,
      secondFactors: peers.secondFactors,
      mail: peers.mail,
      securityEvents: peers.securityEvents,
      rateLimits: peers.rateLimits,
      changes: peers.changeEvents,
      fields: peers.contentFields.of('orgs'),
      options: {
        perUser: config.orgs.perUser,
        invitationDays: config.orgs.invitationDays,
        invitationLink: (token) => mailedLink(config.orgs.invitationUrl, `${config.mail.publicUrl}/account/invitation`, token),
      },
    })
    return { orgs }
  },

  migrations: ['2026-11-28-01-organizations', '2026-12-13-02-org-fields'],
  subscribe({ domainEvents, services }) {
    // Someone who opened an invitation before verifying its address joins once it is verified.
    domainEvents.subscribe('user.email_verified', ({ user }) => services.orgs.joinClaimed(user))
  },
  routes: {
    v2: [
      routes(orgsRoutes, { prefix: '/orgs' }),
      routes(invitationsRoutes, { prefix: '/invitations' }),
      routes(receivedInvitationsRoutes, { prefix: '/users' }),
      routes(adminOrgsRoutes, { prefix: '/admin' }),
    ],
  },
}
