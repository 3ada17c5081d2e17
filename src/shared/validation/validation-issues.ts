// Turns schema-validation errors into the API's `errors: [{loc, msg, type}]` items and the
// one-sentence `detail` naming each field (docs/api.md, Errors: 422).
import type { ErrorObject } from 'ajv'

export type ValidationContext = 'body' | 'querystring' | 'params' | 'headers'

export interface ValidationIssue {
  loc: (string | number)[]
  msg: string
  type: string
}

function describe(error: ErrorObject): { msg: string; type: string } {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' }
    case 'additionalProperties':
      return { msg: 'Extra fields not permitted', type: 'extra_forbidden' }
    case 'type':
      return { msg: `Input should be of type ${String(params.type)}`, type: `${String(params.type)}_type` }
    case 'minLength':
      return { msg: `String should have at least ${String(params.limit)} characters`, type: 'string_too_short' }
    case 'maxLength':
      return { msg: `String should have at most ${String(params.limit)} characters`, type: 'string_too_long' }
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${String(params.limit)}`, type: 'greater_than_equal' }
    case 'maximum':
      return { msg: `Input should be less than or equal to ${String(params.limit)}`, type: 'less_than_equal' }
    case 'pattern':
      return { msg: `String should match pattern '${String(params.pattern)}'`, type: 'string_pattern_mismatch' }
    case 'format':
      return { msg: `Input should be a valid ${String(params.format)}`, type: 'value_error' }
    case 'minProperties':
      return { msg: 'At least one field is required', type: 'missing' }
    case 'const':
      return { msg: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'literal_error' }
    case 'controlCharacter':
      return { msg: 'String must not contain control characters', type: 'string_control_character' }
    case 'maxDepth':
      return { msg: `Input should not nest more than ${String(params.limit)} levels deep`, type: 'too_deep' }
    case 'enum':
      return { msg: 'Input should be one of the allowed values', type: 'enum' }
    default:
      return { msg: error.message ?? 'Invalid value', type: error.keyword }
  }
}

function locationOf(error: ErrorObject, context: ValidationContext): (string | number)[] {
  const loc: (string | number)[] = [context === 'querystring' ? 'query' : context === 'params' ? 'path' : context]
  for (const segment of error.instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~')
    loc.push(/^\d+$/.test(key) ? Number(key) : key)
  }
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required') loc.push(String(params.missingProperty))
  if (error.keyword === 'additionalProperties') loc.push(String(params.additionalProperty))
  return loc
}

export function toValidationIssues(errors: ErrorObject[], context: ValidationContext): ValidationIssue[] {
  // anyOf reports each failed branch and then itself; the branches' own errors say it better.
  const relevant = errors.length > 1 ? errors.filter((error) => error.keyword !== 'anyOf') : errors
  // A union of literals (a visibility, a reaction kind) fails once per literal: one issue names them all.
  const literals = new Map<string, unknown[]>()
  for (const error of relevant) {
    if (error.keyword !== 'const') continue
    const key = JSON.stringify(locationOf(error, context))
    literals.set(key, [...(literals.get(key) ?? []), (error.params as { allowedValue?: unknown }).allowedValue])
  }
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  for (const error of relevant) {
    const loc = locationOf(error, context)
    const allowed = error.keyword === 'const' ? literals.get(JSON.stringify(loc)) : undefined
    const described = allowed !== undefined && allowed.length > 1 ? { msg: `Input should be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`, type: 'literal_error' } : describe(error)
    const issue = { loc, ...described }
    const key = JSON.stringify(issue.loc) + issue.type
    if (!seen.has(key)) {
      seen.add(key)
      issues.push(issue)
    }
  }
  return issues
}

export function validationDetail(issues: ValidationIssue[]): string {
  const parts = issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
  return `Invalid request: ${parts.join('; ')}`
}

