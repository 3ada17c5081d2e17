// Organizations: teams with roles, invitations by verified email, a per-organization second-factor rule.
import { type Feature, routes } from '../feature.js'
import { adminOrgsRoutes } from './admin-orgs.v2.routes.js'
import { invitationsRoutes, receivedInvitationsRoutes } from './invitations.v2.routes.js'
import orgsRoutes from './orgs.v2.routes.js'

export const orgsFeature: Feature = {
  name: 'orgs',
  migrations: ['2026-11-28-01-organizations'],
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
