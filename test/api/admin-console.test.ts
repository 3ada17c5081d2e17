// How the service serves the admin console's files at /admin/ (the console itself is tested in
// Chromium, test/browser/admin.test.ts): the page with its policy, hashed assets cached for good,
// nothing outside the build, and nothing at all with ADMIN_CONSOLE=off.
import { readdir } from 'node:fs/promises'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ADMIN_CONSOLE_DIR, ADMIN_PAGE_POLICY } from '../../src/api/admin-console.routes.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'

describe('/admin/ with the console on (the default)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it.each(['/admin', '/admin/'])('%s serves the page with a strict policy, never cached stale', async (url) => {
    const response = await t.app.inject({ url })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('text/html')
    expect(response.headers['content-security-policy']).toBe(ADMIN_PAGE_POLICY)
    expect(response.headers['x-frame-options']).toBe('DENY')
    expect(response.headers['cache-control']).toBe('no-cache')
    expect(response.body).toContain('<div id="app"></div>')
  })

  it('serves the hashed assets with the same policy, cached for good', async () => {
    const [script] = (await readdir(path.join(ADMIN_CONSOLE_DIR, 'assets'))).filter((name) => name.endsWith('.js'))
    const response = await t.app.inject({ url: `/admin/assets/${script}` })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('javascript')
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it.each(['/admin/nothing.js', '/admin/assets/missing.css', '/admin/../package.json', '/admin/%2e%2e/package.json', '/admin/..%2fpackage.json'])(
    '%s is a 404, never a file outside the build',
    async (url) => {
      const response = await t.app.inject({ url })
      expect(response.statusCode).toBe(404)
      expect(response.body).not.toContain('"dependencies"')
    },
  )

  it('answers only GET and HEAD', async () => {
    expect((await t.app.inject({ method: 'HEAD', url: '/admin/' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'POST', url: '/admin/' })).statusCode).toBe(404)
  })
})

describe('ADMIN_CONSOLE=off', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ ADMIN_CONSOLE: 'off' })
  })
  afterAll(() => t.close())

  it('serves nothing at /admin/', async () => {
    expectError(await t.app.inject({ url: '/admin/' }), 404, 'Not Found')
    expectError(await t.app.inject({ url: '/admin/index.html' }), 404, 'Not Found')
  })
})
