import type { TObject } from 'typebox'
import { Type } from 'typebox'

import { PageEnvelopeSchema } from '../../api/common/page-envelope.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { IMPERSONATION_DEFAULT_MINUTES, IMPERSONATION_MAX_MINUTES } from './impersonations.service.js'

const Reason = Type.String({ minLength: 1, maxLength: 500, description: 'Why, for the audit trail' })

export const BanCreate = Type.Object(
  {
    reason: Reason,
    public_message: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "What the user is shown when refused (the 403's `detail`); a generic sentence when absent" })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the ban lifts by itself (in the future); absent: never ("forever")' })),
  },
  { additionalProperties: false, title: 'BanCreate' },
)

const Mode = Type.Union([Type.Literal('read_only'), Type.Literal('full')], {
  default: 'read_only',
  description: 'read_only: every method but GET and HEAD is refused; full: changes too, but never the ways into the account',
})

export const ImpersonationCreate = Type.Object(
  {
    reason: Reason,
    minutes: Type.Integer({ minimum: 1, maximum: IMPERSONATION_MAX_MINUTES, default: IMPERSONATION_DEFAULT_MINUTES, description: 'How long the token lives' }),
    mode: Mode,
  },
  { additionalProperties: false, title: 'ImpersonationCreate' },
)

/** `user`: version 2's user shape with the declared custom fields (userShapesV2). */
export const impersonationStarted = (UserReadV2: TObject) => Type.Object(
  {
    impersonation_id: Type.String(),
    access_token: Type.String({ description: 'A bearer token for the user, carrying `act: {sub: <superuser id>}` and `imp: <mode>`; there is no refresh token' }),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
    expires_at: Type.String({ format: 'date-time' }),
    mode: Type.Union([Type.Literal('read_only'), Type.Literal('full')]),
    user: UserReadV2,
  },
  { title: 'ImpersonationStarted' },
)

export const ImpersonationsEnded = Type.Object({ detail: Type.String(), ended: Type.Integer() }, { title: 'ImpersonationsEnded' })

export const ImpersonationRead = Type.Object(
  {
    id: Type.String(),
    user_id: Type.Integer(),
    superuser_id: Type.Integer(),
    mode: Type.Union([Type.Literal('read_only'), Type.Literal('full')]),
    reason: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time' }),
    ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was ended early; null when it ran (or runs) to expires_at' }),
  },
  { title: 'ImpersonationRead' },
)
export const ImpersonationPage = PageEnvelopeSchema(ImpersonationRead, 'ImpersonationPage')

export const ImpersonationQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  user_id: Type.Optional(RecordId),
  superuser_id: Type.Optional(RecordId),
})

export const ImpersonationIdParams = Type.Object({ impersonation_id: Type.String({ format: 'uuid' }) })

export const ImpersonationRequestRead = Type.Object(
  {
    id: Type.Integer(),
    method: Type.String(),
    route: Type.String({ description: 'The route answered, as its template (/api/v2/posts/{post_id})' }),
    status: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ImpersonationRequestRead' },
)
export const ImpersonationRequestPage = PageEnvelopeSchema(ImpersonationRequestRead, 'ImpersonationRequestPage')
export const RequestPageQuery = Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) })
