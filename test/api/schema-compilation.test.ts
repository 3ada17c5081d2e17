// The service compiles each route's validators and serializers on the route's first use, not as
// it starts (src/shared/validation/compiled-on-first-use.ts). Here every schema of every route is
// compiled up front, so one that cannot compile fails this test instead of a user's first request.
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'

import { createTestApp } from '../helpers/app.js'

/** A route whose body schema Ajv cannot compile (an invalid pattern) and whose answer fast-json-stringify cannot (a dangling $ref). */
function addBrokenRoutes(app: FastifyInstance): void {
  app.post('/test/broken-body', { config: { door: 'exempt' }, schema: { body: { type: 'object', properties: { name: { type: 'string', pattern: '(' } } } } }, async () => ({}))
  app.get('/test/broken-answer', { schema: { response: { 200: { $ref: '#/definitions/nowhere' } } } }, async () => ({ ok: true }))
  app.get('/test/fine', async () => ({ ok: true }))
}

describe('schema compilation', () => {
  it('compiles every schema of every route the service has', async () => {
    const t = await createTestApp({}, undefined, { compileSchemas: 'at-start' })
    try {
      expect((await t.app.inject({ url: '/api/v2/users/1' })).json()).toEqual({ detail: 'User not found', code: 'user_not_found' })
    } finally {
      await t.close()
    }
  })

  it('refuses to start with a schema that cannot compile when compiling up front', async () => {
    await expect(createTestApp({}, addBrokenRoutes, { compileSchemas: 'at-start' })).rejects.toThrow()
  })

  it('starts, and answers such a route with a plain 500, when compiling on first use', async () => {
    const t = await createTestApp({}, addBrokenRoutes)
    try {
      for (const request of [{ method: 'POST' as const, url: '/test/broken-body', payload: { name: 'x' } }, { method: 'GET' as const, url: '/test/broken-answer' }]) {
        const response = await t.app.inject(request)
        expect(response.statusCode, request.url).toBe(500)
        expect(response.json()).toEqual({ detail: 'Internal server error', code: 'internal_error' })
      }
      expect((await t.app.inject({ url: '/test/fine' })).json()).toEqual({ ok: true })
    } finally {
      await t.close()
    }
  })
})
