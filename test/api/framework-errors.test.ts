// Errors the router raises before any route runs leave like every other error: `{detail, code}`,
// the security headers, and no echo of what the client sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { V1, V2 } from '../helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('router errors', () => {
  it.each([
    ['a malformed URL', `${V1}/users/%E0%A4%A`, 400, 'Malformed URL'],
    ['a malformed URL in v2', `${V2}/posts/%zz<script>`, 400, 'Malformed URL'],
    ['an over-long path parameter', `${V1}/users/${'9'.repeat(300)}`, 414, 'URI too long'],
    ['an over-long media name', `/media/avatars/${'a'.repeat(300)}<script>`, 414, 'URI too long'],
  ])('answer %s with {detail, code}, security headers and no echo', async (_label, url, status, detail) => {
    const response = await t.app.inject({ url })
    expectError(response, status, detail)
    expect(Object.keys(response.json())).toEqual(['detail', 'code'])
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['content-security-policy']).toContain("default-src 'none'")
    expect(response.body).not.toContain('script')
    expect(response.body).not.toContain('999')
  })
})
