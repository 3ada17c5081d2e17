// A record's custom field values: as stored (one JSON object a row), as a reader sees them, and as
// a write changes them. Every read of every path goes through `view`, so who reads which level is
// decided here once; every write through `assertWritable` and `mergedFields`.
import { DomainError, RuleViolation } from '../../shared/errors.js'
import { createValidatorCompiler } from '../../shared/validation/schema-validator.js'
import type { CollectionSchema, FieldLevel } from './content-schema.js'
import { readsLevel } from './content-schema.js'

export type FieldValues = Readonly<Record<string, unknown>>

export const NO_FIELDS: FieldValues = Object.freeze({})

/** The stored object: a JSON text (SQLite) or an already parsed value (PostgreSQL's jsonb). */
export function storedFieldsOf(raw: unknown): FieldValues {
  if (raw === null || raw === undefined || raw === '{}') return NO_FIELDS
  const value: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as FieldValues) : NO_FIELDS
}

type Check = (value: unknown) => boolean

/** One collection's declared fields, with a check of each value compiled once. */
export class CollectionFields {
  readonly declared: CollectionSchema['fields']
  private readonly checks: ReadonlyMap<string, { level: FieldLevel; check: Check }>
  /** Whether any declared field is above `public`: a reader's level matters only then. */
  readonly hasNonPublic: boolean
  /** The date-time fields, stored normalized. */
  private readonly times: ReadonlySet<string>

  constructor(schema: CollectionSchema) {
    this.declared = schema.fields
    const compile = createValidatorCompiler('at-start')
    this.checks = new Map(schema.fields.map((field) => {
      const validate = compile({ schema: field.value, httpPart: 'body' })
      return [field.name, { level: field.level, check: (value: unknown) => validate(value).error === undefined }]
    }))
    this.hasNonPublic = schema.fields.some((field) => field.level !== 'public')
    this.times = new Set(schema.fields.filter((field) => (field.value as { format?: string }).format === 'date-time').map((field) => field.name))
  }

  /**
   * The values as they are stored: a date-time in UTC to the millisecond (toISOString), so that
   * equal instants are equal texts and a filter compares them as instants on both databases.
   */
  normalized(given: FieldValues | undefined): FieldValues | undefined {
    if (given === undefined || this.times.size === 0) return given
    const stored: Record<string, unknown> = { ...given }
    for (const name of this.times) if (typeof stored[name] === 'string') stored[name] = new Date(stored[name]).toISOString()
    return stored
  }

  /**
   * What a reader at `level` sees of the stored values: the declared fields of their level and
   * below whose value the declaration still accepts. A stored value of a field no longer declared,
   * or no longer valid, stays stored (a write never drops it) and is not shown.
   */
  view(stored: FieldValues, level: FieldLevel): FieldValues {
    if (stored === NO_FIELDS) return NO_FIELDS
    const shown: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(stored)) {
      const field = this.checks.get(name)
      if (field && readsLevel(level, field.level) && field.check(value)) shown[name] = value
    }
    return shown
  }

  /** 403 field_not_writable for a field above the writer's level (server fields, for anyone but a superuser). */
  assertWritable(given: FieldValues | undefined, level: FieldLevel): void {
    for (const name of Object.keys(given ?? {})) {
      const field = this.checks.get(name)
      if (field && !readsLevel(level, field.level)) {
        throw new DomainError('forbidden', `The field "${name}" is written by superusers only.`, { code: 'field_not_writable' })
      }
    }
  }
}

/**
 * The values after a write: each given field replaces the stored one, null takes it away (a merge
 * patch, RFC 7396), and what the write does not name stays, declared or not.
 */
export function mergedFields(stored: FieldValues, given: FieldValues | undefined): FieldValues {
  if (given === undefined) return stored
  const merged: Record<string, unknown> = { ...stored }
  for (const [name, value] of Object.entries(given)) {
    if (value === null) delete merged[name]
    else merged[name] = value
  }
  return merged
}

/** How large a record's custom fields may be as JSON, all stored fields together: a row stays a row. */
export const FIELDS_MAX_BYTES = 65_536

/** The column's value for a write; 422 on `fields` when it outgrows FIELDS_MAX_BYTES. */
export function fieldsColumn(values: FieldValues): string {
  const json = JSON.stringify(values)
  if (Buffer.byteLength(json) > FIELDS_MAX_BYTES) throw new RuleViolation('fields', `The custom fields take more than ${FIELDS_MAX_BYTES} bytes as JSON.`, 'maxLength')
  return json
}
