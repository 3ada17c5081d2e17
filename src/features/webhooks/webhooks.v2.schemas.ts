// Wire shapes of webhooks and their deliveries (version 2, superusers).
import { Type } from 'typebox'

import { PageEnvelopeSchema } from '../../api/common/page-envelope.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { CHANGE_EVENT_TYPES } from '../change-events/index.js'

export const EventType = Type.Union(CHANGE_EVENT_TYPES.map((type) => Type.Literal(type)), { description: 'A change event type' })
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; a public address unless WEBHOOK_ALLOW_PRIVATE=true' })
const Events = Type.Array(EventType, { minItems: 1, maxItems: CHANGE_EVENT_TYPES.length * 2, description: 'The event types to deliver' })
const Description = Type.String({ maxLength: 500 })
const DateTime = Type.String({ format: 'date-time' })
const NullableDateTime = Type.Union([DateTime, Type.Null()])

export const WebhookIdParams = Type.Object({ webhook_id: RecordId })
export const DeliveryIdParams = Type.Object({ delivery_id: RecordId })
export const WebhookPageQuery = Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) })

export const WebhookCreate = Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }, { additionalProperties: false })
export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'true turns a disabled endpoint back on (pending deliveries then go out)' })),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const WebhookRead = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    description: Type.String(),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the service turned it off; null when enabled or turned off by hand' }),
    failing_since: Type.Union([DateTime, Type.Null()], { description: 'The first failed attempt since the last success' }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'WebhookRead' },
)
export const WebhookCreated = Type.Object(
  { ...WebhookRead.properties, secret: Type.String({ description: 'The signing secret (whsec_…), shown only now' }) },
  { title: 'WebhookCreated' },
)
export const WebhookPage = PageEnvelopeSchema(WebhookRead, 'WebhookPage')
export const WebhookSecret = Type.Object(
  {
    secret: Type.String({ description: 'The new signing secret, shown only now' }),
    previous_valid_until: Type.String({ format: 'date-time', description: 'Until then the old secret signs every delivery too' }),
  },
  { title: 'WebhookSecret' },
)

export const DeliveryRead = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    message_id: Type.String({ description: 'The webhook-id header: the same on every attempt and redelivery' }),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    last_attempt_at: NullableDateTime,
    next_attempt_at: Type.Union([DateTime, Type.Null()], { description: 'When the next attempt is due; null once settled' }),
    created_at: DateTime,
  },
  { title: 'WebhookDeliveryRead' },
)
export const DeliveryPage = PageEnvelopeSchema(DeliveryRead, 'WebhookDeliveryPage')
