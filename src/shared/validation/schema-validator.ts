// Schema validation with Ajv, for request parts (through Fastify's validator compiler) and for
// anything else checked against the same schemas (the administrator account). Bodies are checked strictly (no type coercion, unknown fields kept
// so `additionalProperties: false` refuses them); path, query and headers arrive as text, so
// they are coerced to the declared types.
import type { ErrorObject, Options as AjvOptions, ValidateFunction } from 'ajv'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'

import type { SchemaCompilation } from './compiled-on-first-use.js'
import { compiledOnFirstUse } from './compiled-on-first-use.js'

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const COMMON: AjvOptions = {
  allErrors: true,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
}

function createAjv(options: AjvOptions): Ajv {
  const ajv = new Ajv({ ...COMMON, ...options })
  addFormats(ajv)
  return ajv
}

// Ajv coerces any text that JavaScript reads as a number ("1e3", "0x10", " 7"); an id or a page
// number must be plain decimal digits, so anything else is made uncoercible before validation.
const INTEGER_TEXT = /^-?\d+$/
const NOT_AN_INTEGER = Object.freeze({})

interface PropertySchema {
  type?: unknown
  const?: unknown
  anyOf?: PropertySchema[]
}

function allowsInteger(schema: PropertySchema): boolean {
  return schema.type === 'integer' || (schema.anyOf?.some(allowsInteger) ?? false)
}

/** A word such as "none" beside an id ({tier_id}) is text the integer check must leave alone. */
function allowsWord(schema: PropertySchema): boolean {
  return (typeof schema.const === 'string' && schema.const !== '') || (schema.anyOf?.some(allowsWord) ?? false)
}

function integerProperties(schema: { properties?: Record<string, PropertySchema> }): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => allowsInteger(property) && !allowsWord(property))
    .map(([name]) => name)
}

export type ValidationResult = { value: unknown; error?: undefined } | { error: ErrorObject[]; value?: undefined }

/** Which part of a request a schema is for; anything but `body` arrives as text and is coerced. */
export interface SchemaTarget {
  schema: unknown
  httpPart?: string
}

/**
 * C0 control characters (and DEL) that no field needs: tab, line feed and carriage return stay
 * allowed for multi-line text. U+0000 in particular cannot be stored by PostgreSQL.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/**
 * How deep a request's JSON may nest. No field of the API goes past a few levels; a bound keeps
 * every walk over the input (this one, the schema's) far from the stack's end, whatever arrives.
 */
export const MAX_JSON_DEPTH = 32

type Problem = 'controlCharacter' | 'maxDepth'

/** The first string inside `data` holding a control character, or the first value nested too deep, as a validation error at its path. */
export function controlCharacterError(data: unknown): ErrorObject | undefined {
  const found = firstProblem(data, 0)
  if (found === undefined) return undefined
  const message = found.problem === 'maxDepth' ? `is nested more than ${MAX_JSON_DEPTH} levels deep` : 'contains a control character'
  return { keyword: found.problem, instancePath: found.path, schemaPath: '', params: { limit: MAX_JSON_DEPTH }, message }
}

/** The JSON pointer of the first problem; built only when there is one (runs on every request). */
function firstProblem(data: unknown, depth: number): { path: string; problem: Problem } | undefined {
  if (typeof data === 'string') return CONTROL_CHARACTER.test(data) ? { path: '', problem: 'controlCharacter' } : undefined
  if (typeof data !== 'object' || data === null) return undefined
  if (depth >= MAX_JSON_DEPTH) return { path: '', problem: 'maxDepth' }
  for (const key in data) {
    if (!Object.hasOwn(data, key)) continue
    const inner = firstProblem((data as Record<string, unknown>)[key], depth + 1)
    if (inner !== undefined) return { path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}${inner.path}`, problem: inner.problem }
  }
  return undefined
}

/** Fastify's validator compiler; `when`: each schema compiled on its route's first use (the service) or now (tests, the administrator account). */
export function createValidatorCompiler(when: SchemaCompilation = 'at-start'): (target: SchemaTarget) => (data: unknown) => ValidationResult {
  let ajv: { strict: Ajv; coercing: Ajv } | undefined
  // Two Ajv instances with their formats are themselves worth deferring to the first request.
  const instances = () => (ajv ??= { strict: createAjv({ coerceTypes: false }), coercing: createAjv({ coerceTypes: 'array' }) })
  return (target) => compiledOnFirstUse(() => compileValidator(instances(), target), when)
}

function compileValidator({ strict, coercing }: { strict: Ajv; coercing: Ajv }, { schema, httpPart }: SchemaTarget): (data: unknown) => ValidationResult {
  if (httpPart === 'body') {
    const validate: ValidateFunction = strict.compile(schema as object)
    return (data) => {
      const control = controlCharacterError(data)
      if (control) return { error: [control] }
      return validate(data) ? { value: data } : { error: validate.errors ?? [] }
    }
  }
  const validate: ValidateFunction = coercing.compile(schema as object)
  const integers = integerProperties(schema as object)
  return (data) => {
    const control = controlCharacterError(data)
    if (control) return { error: [control] }
    if (integers.length > 0 && typeof data === 'object' && data !== null) {
      const record = data as Record<string, unknown>
      for (const name of integers) {
        const value = record[name]
        if (typeof value === 'string' && value !== '' && !INTEGER_TEXT.test(value)) record[name] = NOT_AN_INTEGER
      }
    }
    return validate(data) ? { value: data } : { error: validate.errors ?? [] }
  }
}
