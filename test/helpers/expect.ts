import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

/** Asserts the status and the `{detail}` error body. */
export function expectError(response: LightMyRequestResponse, status: number, detail?: string | RegExp): void {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json() as { detail: unknown }
  expect(typeof body.detail).toBe('string')
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
