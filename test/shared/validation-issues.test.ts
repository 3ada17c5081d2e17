// How a union of literals reads when it fails: one issue naming every allowed value.
import type { ErrorObject } from 'ajv'
import { describe, expect, it } from 'vitest'

import { toValidationIssues, validationDetail } from '../../src/shared/validation/validation-issues.js'

const literal = (path: string, allowedValue: unknown): ErrorObject => ({ keyword: 'const', instancePath: path, schemaPath: '#', params: { allowedValue } })
const anyOf = (path: string): ErrorObject => ({ keyword: 'anyOf', instancePath: path, schemaPath: '#', params: {} })

describe('validation issues', () => {
  it('names every value of a failed union of literals in one issue', () => {
    const issues = toValidationIssues([literal('/visibility', 'public'), literal('/visibility', 'private'), anyOf('/visibility')], 'body')
    expect(issues).toEqual([{ loc: ['body', 'visibility'], msg: 'Input should be one of "public", "private"', type: 'literal_error' }])
    expect(validationDetail(issues)).toBe('Invalid request: body.visibility: Input should be one of "public", "private"')
  })

  it('keeps a single literal as it was, and two fields apart', () => {
    expect(toValidationIssues([literal('/kind', 'like')], 'params')).toEqual([{ loc: ['path', 'kind'], msg: 'Input should be "like"', type: 'literal_error' }])
    const two = toValidationIssues([literal('/a', 'x'), literal('/a', 'y'), literal('/b', 'z'), anyOf('/a')], 'querystring')
    expect(two.map((issue) => issue.msg)).toEqual(['Input should be one of "x", "y"', 'Input should be "z"'])
  })
})
