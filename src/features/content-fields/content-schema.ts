// CONTENT_SCHEMA: the fields an operator declares for posts, users and organizations, read once at
// start. A JSON Schema subset per collection (`properties`, `required`), each field with the level
// that reads it (`visibility`). Anything outside the subset stops the start with the field's path
// and the reason, so a typo never becomes a field nobody validates (docs/api.md "Custom fields").
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

export const COLLECTIONS = ['posts', 'users', 'orgs'] as const
export type Collection = (typeof COLLECTIONS)[number]

/**
 * Who reads a field: `public` whoever reads the record; `private` the record's owner (the user,
 * the post's editors, the organization's admins and owners) and superusers; `server` superusers
 * only, their API keys included. Ordered: each level reads the ones before it.
 */
export const FIELD_LEVELS = ['public', 'private', 'server'] as const
export type FieldLevel = (typeof FIELD_LEVELS)[number]

export interface FieldDeclaration {
  name: string
  level: FieldLevel
  required: boolean
  /** The JSON Schema of its value, as the API documents and validates it. */
  value: TSchema
}

export interface CollectionSchema {
  readonly fields: readonly FieldDeclaration[]
}

export type ContentSchema = Readonly<Record<Collection, CollectionSchema>>

export const EMPTY_CONTENT_SCHEMA: ContentSchema = { posts: { fields: [] }, users: { fields: [] }, orgs: { fields: [] } }

export const FIELD_NAME = /^[a-z][a-z0-9_]{0,39}$/
export const MAX_FIELDS = 64
const STRING_MAX = 10_000
const STRING_DEFAULT_MAX = 1_000
const ITEMS_MAX = 1_000
const ITEMS_DEFAULT_MAX = 100

/** A mistake in the schema document, with where it is ("posts.rating.maximum"). */
export class ContentSchemaError extends Error {}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

function fail(at: string, reason: string): never {
  throw new ContentSchemaError(`${at}: ${reason}`)
}

function onlyKeys(at: string, value: Json, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(at, `"${key}" is not supported here (allowed: ${allowed.join(', ')})`)
}

function integerIn(at: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(at, `must be an integer from ${min} to ${max}`)
  return value
}

function finite(at: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(at, 'must be a number')
  return value
}

function text(at: string, value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length > max) fail(at, `must be text of at most ${max} characters`)
  return value
}

function ordered(at: string, low: number | undefined, high: number | undefined): void {
  if (low !== undefined && high !== undefined && low > high) fail(at, 'the lower bound is above the upper one')
}

/** A string's own keywords, for a field or an array's items. */
function stringSchema(at: string, declared: Json, extra: Json): TSchema {
  const allowedKeys = ['type', 'minLength', 'maxLength', 'pattern', 'format', 'enum', 'description', 'visibility']
  onlyKeys(at, declared, allowedKeys)
  if (declared.enum !== undefined) {
    const values = declared.enum
    if (!Array.isArray(values) || values.length === 0 || values.length > 100 || !values.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 200)) {
      fail(`${at}.enum`, 'must list 1 to 100 distinct texts of 1 to 200 characters')
    }
    if (new Set(values).size !== values.length) fail(`${at}.enum`, 'lists a value twice')
    for (const key of ['minLength', 'maxLength', 'pattern', 'format']) if (declared[key] !== undefined) fail(`${at}.${key}`, 'does not go with enum')
    return Type.Unsafe<string>({ type: 'string', enum: values, ...extra })
  }
  if (declared.format !== undefined) {
    if (declared.format !== 'date-time') fail(`${at}.format`, 'the only format is date-time')
    for (const key of ['minLength', 'maxLength', 'pattern']) if (declared[key] !== undefined) fail(`${at}.${key}`, 'does not go with format')
    return Type.String({ format: 'date-time', maxLength: 40, ...extra })
  }
  const minLength = integerIn(`${at}.minLength`, declared.minLength, 0, STRING_MAX)
  const maxLength = integerIn(`${at}.maxLength`, declared.maxLength, 1, STRING_MAX) ?? STRING_DEFAULT_MAX
  ordered(at, minLength, maxLength)
  const pattern = text(`${at}.pattern`, declared.pattern, 500)
  if (pattern !== undefined) {
    try {
      new RegExp(pattern, 'u')
    } catch {
      fail(`${at}.pattern`, 'is not a regular expression')
    }
  }
  return Type.String({ ...(minLength === undefined ? {} : { minLength }), maxLength, ...(pattern === undefined ? {} : { pattern }), ...extra })
}

function numberSchema(at: string, declared: Json, extra: Json): TSchema {
  onlyKeys(at, declared, ['type', 'minimum', 'maximum', 'description', 'visibility'])
  const integer = declared.type === 'integer'
  const minimum = finite(`${at}.minimum`, declared.minimum)
  const maximum = finite(`${at}.maximum`, declared.maximum)
  ordered(at, minimum, maximum)
  // Integers stay within what JavaScript and both databases' JSON hold exactly.
  const bounds = { minimum: minimum ?? (integer ? Number.MIN_SAFE_INTEGER : -Number.MAX_VALUE), maximum: maximum ?? (integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE) }
  return integer ? Type.Integer({ ...bounds, ...extra }) : Type.Number({ ...bounds, ...extra })
}

function arraySchema(at: string, declared: Json, extra: Json): TSchema {
  onlyKeys(at, declared, ['type', 'items', 'minItems', 'maxItems', 'uniqueItems', 'description', 'visibility'])
  if (!isObject(declared.items) || declared.items.type !== 'string') fail(`${at}.items`, 'must be {"type": "string", …}: arrays hold texts')
  const items = stringSchema(`${at}.items`, declared.items, {})
  const minItems = integerIn(`${at}.minItems`, declared.minItems, 0, ITEMS_MAX)
  const maxItems = integerIn(`${at}.maxItems`, declared.maxItems, 1, ITEMS_MAX) ?? ITEMS_DEFAULT_MAX
  ordered(at, minItems, maxItems)
  if (declared.uniqueItems !== undefined && typeof declared.uniqueItems !== 'boolean') fail(`${at}.uniqueItems`, 'must be true or false')
  return Type.Array(items, { ...(minItems === undefined ? {} : { minItems }), maxItems, ...(declared.uniqueItems === true ? { uniqueItems: true } : {}), ...extra })
}

function valueSchema(at: string, declared: Json, level: FieldLevel): TSchema {
  const description = text(`${at}.description`, declared.description, 500)
  // The level is part of the documented shape: a client sees who reads the field.
  const extra = { description: [description, `Read by: ${LEVEL_READERS[level]}.`].filter(Boolean).join(' '), 'x-visibility': level }
  const type = declared.type ?? (declared.enum === undefined ? undefined : 'string')
  switch (type) {
    case 'string':
      return stringSchema(at, declared, extra)
    case 'integer':
    case 'number':
      return numberSchema(at, declared, extra)
    case 'boolean':
      onlyKeys(at, declared, ['type', 'description', 'visibility'])
      return Type.Boolean(extra)
    case 'array':
      return arraySchema(at, declared, extra)
    default:
      return fail(`${at}.type`, 'must be string, integer, number, boolean or array')
  }
}

const LEVEL_READERS: Record<FieldLevel, string> = {
  public: 'whoever reads the record',
  private: "the record's owner (the user; the post's editors; the organization's admins and owners) and superusers",
  server: 'superusers only (written by them too)',
}

function fieldOf(collection: Collection, name: string, declared: unknown, required: boolean): FieldDeclaration {
  const at = `${collection}.${name}`
  if (!FIELD_NAME.test(name)) fail(at, 'a field name is a lowercase letter, then up to 39 lowercase letters, digits or _')
  if (!isObject(declared)) fail(at, 'must be an object')
  const level = declared.visibility
  if (!(FIELD_LEVELS as readonly unknown[]).includes(level)) fail(`${at}.visibility`, 'must be public, private or server (who reads the field)')
  if (required && level === 'server') fail(at, 'a required field must be public or private: only superusers write server fields')
  if (required && collection === 'users') fail(at, 'user fields cannot be required: accounts are also made by sign-in methods that take no fields')
  return { name, level: level as FieldLevel, required, value: valueSchema(at, declared, level as FieldLevel) }
}

function collectionOf(collection: Collection, declared: unknown): CollectionSchema {
  if (!isObject(declared)) fail(collection, 'must be an object with "properties"')
  onlyKeys(collection, declared, ['type', 'properties', 'required', 'description'])
  if (declared.type !== undefined && declared.type !== 'object') fail(`${collection}.type`, 'must be object')
  const properties = declared.properties ?? {}
  if (!isObject(properties)) fail(`${collection}.properties`, 'must be an object of fields')
  const names = Object.keys(properties)
  if (names.length > MAX_FIELDS) fail(`${collection}.properties`, `at most ${MAX_FIELDS} fields`)
  const required = declared.required ?? []
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) fail(`${collection}.required`, 'must be a list of field names')
  for (const name of required as string[]) if (!names.includes(name)) fail(`${collection}.required`, `names "${name}", which is not among its properties`)
  return { fields: names.map((name) => fieldOf(collection, name, properties[name], (required as string[]).includes(name))) }
}

/** The schema document, checked: a ContentSchemaError names the first mistake. */
export function parseContentSchema(document: unknown): ContentSchema {
  if (!isObject(document)) fail('(document)', 'must be a JSON object with posts, users or orgs')
  onlyKeys('(document)', document, ['$schema', 'description', ...COLLECTIONS])
  return Object.fromEntries(COLLECTIONS.map((collection) => [collection, document[collection] === undefined ? EMPTY_CONTENT_SCHEMA[collection] : collectionOf(collection, document[collection])])) as ContentSchema
}

/** Whether a reader at `reader` reads a field at `field`. */
export const readsLevel = (reader: FieldLevel, field: FieldLevel) => FIELD_LEVELS.indexOf(field) <= FIELD_LEVELS.indexOf(reader)
