// What the serializer is given for a response schema (src/shared/validation/serializer-schema.ts):
// an anyOf of plain scalars becomes a list of types it writes with a typeof check; anything else
// is left as it is, and the documents' schema is never changed.
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'

import { serializerSchema } from '../../src/shared/validation/serializer-schema.js'

describe('a response schema as the serializer gets it', () => {
  it('writes a nullable scalar, an enum of words and a union of numbers as lists of types', () => {
    const schema = Type.Object({
      published_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When' }),
      visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
      org_id: Type.Union([Type.Integer(), Type.Null()]),
      amount: Type.Union([Type.Integer(), Type.Number()]),
    })
    const written = serializerSchema(schema) as { properties: Record<string, unknown> }
    expect(written.properties.published_at).toEqual({ type: ['string', 'null'], description: 'When' })
    expect(written.properties.visibility).toEqual({ type: 'string' })
    expect(written.properties.org_id).toEqual({ type: ['integer', 'null'] })
    expect(written.properties.amount).toEqual({ type: 'number' })
  })

  it('leaves a union with an object or an array in it, and does not change the schema it was given', () => {
    const union = Type.Union([Type.Object({ id: Type.Integer() }), Type.Null()])
    const schema = Type.Object({ owner: union, tags: Type.Union([Type.Array(Type.String()), Type.String()]) })
    const before = JSON.stringify(schema)
    const written = serializerSchema(schema) as { properties: { owner: { anyOf: unknown[] }; tags: { anyOf: unknown[] } } }
    expect(written.properties.owner.anyOf).toHaveLength(2)
    expect(written.properties.tags.anyOf).toHaveLength(2)
    expect(JSON.stringify(schema)).toBe(before)
  })
})
