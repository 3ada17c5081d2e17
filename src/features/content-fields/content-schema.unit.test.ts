// CONTENT_SCHEMA's checks: every mistake stops the start with the field's path and the reason,
// and what passes is the JSON Schema the API validates and documents with.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ConfigError } from '../../shared/settings.js'
import { parseContentSchema } from './content-schema.js'
import { CollectionFields, mergedFields } from './field-values.js'
import { contentFieldsSettings } from './settings.js'

const posts = (properties: object, extra: object = {}) => ({ posts: { properties, ...extra } })

describe('CONTENT_SCHEMA', () => {
  it.each([
    ['an unknown collection', { comments: {} }, /\(document\): "comments" is not supported/],
    ['a field without a level', posts({ rating: { type: 'integer' } }), /posts\.rating\.visibility: must be public, private or server/],
    ['a bad field name', posts({ Rating: { type: 'integer', visibility: 'public' } }), /posts\.Rating: a field name/],
    ['an unknown type', posts({ rating: { type: 'object', visibility: 'public' } }), /posts\.rating\.type: must be string/],
    ['a keyword outside the subset', posts({ rating: { type: 'integer', multipleOf: 2, visibility: 'public' } }), /posts\.rating: "multipleOf" is not supported/],
    ['bounds the wrong way round', posts({ rating: { type: 'integer', minimum: 5, maximum: 1, visibility: 'public' } }), /posts\.rating: the lower bound is above/],
    ['a broken pattern', posts({ code: { type: 'string', pattern: '(', visibility: 'public' } }), /posts\.code\.pattern: is not a regular expression/],
    ['a text longer than allowed', posts({ body: { type: 'string', maxLength: 10_001, visibility: 'public' } }), /posts\.body\.maxLength: must be an integer from 1 to 10000/],
    ['an array of numbers', posts({ scores: { type: 'array', items: { type: 'integer' }, visibility: 'public' } }), /posts\.scores\.items: must be/],
    ['a format other than date-time', posts({ mail: { type: 'string', format: 'email', visibility: 'public' } }), /posts\.mail\.format: the only format is date-time/],
    ['a required field that is not declared', posts({}, { required: ['rating'] }), /posts\.required: names "rating"/],
    ['a required server field', posts({ crm: { type: 'string', visibility: 'server' } }, { required: ['crm'] }), /posts\.crm: a required field must be public or private/],
    ['a required user field', { users: { properties: { plan: { type: 'string', visibility: 'public' } }, required: ['plan'] } }, /users\.plan: user fields cannot be required/],
    ['an enum listing a value twice', posts({ kind: { enum: ['a', 'a'], visibility: 'public' } }), /posts\.kind\.enum: lists a value twice/],
  ])('refuses %s, naming where', (_case, document, message) => {
    expect(() => parseContentSchema(document)).toThrow(message)
  })

  it('reads a file or inline JSON, and stops the start with a ConfigError naming the setting', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'content-schema-'))
    try {
      const file = path.join(dir, 'schema.json')
      await writeFile(file, JSON.stringify(posts({ rating: { type: 'integer', visibility: 'public' } })))
      expect(contentFieldsSettings({ CONTENT_SCHEMA: file }).contentSchema.posts.fields.map((field) => field.name)).toEqual(['rating'])
      expect(contentFieldsSettings({ CONTENT_SCHEMA: JSON.stringify(posts({ kind: { enum: ['a'], visibility: 'private' } })) }).contentSchema.posts.fields[0]).toMatchObject({ name: 'kind', level: 'private', required: false })
      await writeFile(file, '{ not json')
      expect(() => contentFieldsSettings({ CONTENT_SCHEMA: file })).toThrow(ConfigError)
      expect(() => contentFieldsSettings({ CONTENT_SCHEMA: path.join(dir, 'missing.json') })).toThrow(/CONTENT_SCHEMA: cannot read the file/)
      expect(() => contentFieldsSettings({ CONTENT_SCHEMA: '{"posts": {"properties": {"x": {"type": "integer"}}}}' })).toThrow(/^CONTENT_SCHEMA: posts\.x\.visibility/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('shows a reader the valid declared values of their level and below, and keeps the rest stored', () => {
    const fields = new CollectionFields(parseContentSchema(posts({
      rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public' },
      note: { type: 'string', visibility: 'private' },
      crm: { type: 'string', visibility: 'server' },
    })).posts)
    const stored = { rating: 9, note: 'n', crm: 'c', gone: true }
    expect(fields.view(stored, 'public')).toEqual({})
    expect(fields.view({ ...stored, rating: 3 }, 'public')).toEqual({ rating: 3 })
    expect(fields.view({ ...stored, rating: 3 }, 'private')).toEqual({ rating: 3, note: 'n' })
    expect(fields.view({ ...stored, rating: 3 }, 'server')).toEqual({ rating: 3, note: 'n', crm: 'c' })
    expect(mergedFields(stored, { note: null, rating: 2 })).toEqual({ rating: 2, crm: 'c', gone: true })
    expect(() => fields.assertWritable({ crm: 'x' }, 'private')).toThrow(/superusers only/)
    expect(() => fields.assertWritable({ crm: 'x' }, 'server')).not.toThrow()
  })
})
