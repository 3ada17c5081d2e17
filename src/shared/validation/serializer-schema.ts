// What a response schema tells the serializer. fast-json-stringify writes an `anyOf` by running
// Ajv on the value for each branch until one matches, on every response: a nullable date, an
// enum of words or a nullable id cost a validation per field per item (17 µs of a ten-post page,
// docs/performance.md). The documents keep the schemas as they are; the serializer gets each
// `anyOf` whose branches are all plain scalars (a type, perhaps a const, a format or bounds) as
// one list of types, which it writes with a typeof check.
type Schema = Record<string, unknown>

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null'])
/** Keywords of a scalar branch that change nothing about how a value is written. */
const ONLY_VALIDATING = new Set(['type', 'const', 'enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'description', 'title', 'examples', 'default'])

function scalarType(branch: unknown): string | undefined {
  if (typeof branch !== 'object' || branch === null) return undefined
  const { type } = branch as Schema
  if (typeof type !== 'string' || !SCALARS.has(type)) return undefined
  return Object.keys(branch).every((key) => ONLY_VALIDATING.has(key)) ? type : undefined
}

/** The schema with every all-scalar `anyOf` written as a list of types; anything else as it is (a copy, never the original). */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema)
  if (typeof schema !== 'object' || schema === null) return schema
  const copy: Schema = {}
  for (const [key, value] of Object.entries(schema)) copy[key] = serializerSchema(value)
  const branches = copy.anyOf
  if (!Array.isArray(branches) || branches.length === 0) return copy
  const types = branches.map(scalarType)
  if (types.some((type) => type === undefined)) return copy
  const { anyOf: _anyOf, ...rest } = copy
  const distinct = [...new Set(types as string[])]
  // An integer is a number: the wider type writes both.
  const written = distinct.includes('number') ? distinct.filter((type) => type !== 'integer') : distinct
  return { ...rest, type: written.length === 1 ? written[0] : written }
}
