import { Type } from 'typebox'

import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { SECURITY_EVENT_TYPES } from './security-event.js'

const EventType = Type.Union(
  SECURITY_EVENT_TYPES.map((type) => Type.Literal(type)),
  { description: 'What happened' },
)

export const SecurityEventRead = Type.Object(
  {
    id: Type.String(),
    user_id: Type.Union([Type.Integer(), Type.Null()]),
    type: EventType,
    method: Type.Union([Type.String(), Type.Null()], {
      description: 'How a login was made (login_succeeded, login_failed): `password`, `email_link`, `email_code`, `github` or `oidc:<provider>`; the provider on identity_linked; null for other events',
      examples: ['password'],
    }),
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    post_id: Type.Optional(Type.Integer({ description: 'The post a superuser read or changed without a rule opening it to them (post_read_as_superuser, post_changed_as_superuser)' })),
    actor_id: Type.Optional(Type.Integer({ description: 'The superuser who acted on the user: a ban (user_banned, user_unbanned), a support impersonation (impersonation_started, impersonation_ended)' })),
    details: Type.Optional(
      Type.Object({}, {
        additionalProperties: true,
        description: 'What else the event says: an impersonation\'s `mode`, `reason` and `expires_at` (impersonation_started, shown to the user as "Support accessed your account"); a ban\'s `banned_until`',
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SecurityEventRead' },
)

export const OwnSecurityEventQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  type: Type.Optional(EventType),
})

export const SecurityEventQuery = Type.Object({ ...OwnSecurityEventQuery.properties, user_id: Type.Optional(RecordId) })
