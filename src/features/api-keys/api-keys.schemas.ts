import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

const Scopes = Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write')]), {
  minItems: 1,
  maxItems: 2,
  uniqueItems: true,
  description: '["read"]: GET only; ["read", "write"]: every method',
})

export const ApiKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', examples: ['nightly export'] }),
    scopes: Scopes,
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  },
  { additionalProperties: false, title: 'ApiKeyCreate' },
)

const ApiKeyFields = {
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: 'The start of the key, to tell keys apart' }),
  scopes: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}

export const ApiKeyRead = Type.Object(ApiKeyFields, { title: 'ApiKeyRead' })

export const ApiKeyCreated = Type.Object(
  { key: Type.String({ description: 'The key itself, shown this once: send it as X-API-Key' }), ...ApiKeyFields },
  { title: 'ApiKeyCreated' },
)

export const ApiKeyIdParams = Type.Object({ api_key_id: RecordId })
