import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

import { ERROR_CODES } from '../../src/features/index.js'

/** Asserts the status and the `{detail, code}` error body: every error carries a documented code. */
export function expectError(response: LightMyRequestResponse, status: number, detail?: string | RegExp, code?: string): void {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json() as { detail: unknown; code: unknown }
  expect(typeof body.detail).toBe('string')
  expect(Object.keys(ERROR_CODES), `undocumented error code in ${response.body}`).toContain(body.code)
  if (code !== undefined) expect(body.code).toBe(code)
  // A 422 is a rule broken: validation_failed, or the one rule with a code of its own.
  if (status === 422) expect(['validation_failed', 'image_too_large']).toContain(body.code)
  if (typeof detail === 'string') expect(body.detail).toBe(detail)
  else if (detail) expect(body.detail).toMatch(detail)
}

/** Asserts a 422 whose errors name the given location (e.g. ['body', 'email']). */
export function expectValidationError(response: LightMyRequestResponse, loc: (string | number)[]): void {
  expectError(response, 422)
  const body = response.json() as { detail: string; errors: { loc: unknown[]; msg: string; type: string }[] }
  expect(body.errors.map((error) => error.loc)).toContainEqual(loc)
  expect(body.detail).toContain(loc.join('.'))
}
