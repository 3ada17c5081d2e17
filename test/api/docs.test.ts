// Each version's OpenAPI document and Swagger UI: valid, complete, and holding only its own routes.
import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const PREFIXES = { v1: '/services/v1', v2: '/api/v2' } as const

describe.each(Object.entries(PREFIXES))('%s docs', (version, prefix) => {
  const document = async () => {
    const response = await t.app.inject({ url: `${prefix}/openapi.json` })
    expect(response.statusCode).toBe(200)
    return response.json()
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await document()
    expect(doc.openapi).toBe('3.1.0')
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined()
  })

  it('lists only its own routes, all of them', async () => {
    const paths = Object.keys((await document()).paths)
    expect(paths.length).toBeGreaterThanOrEqual(15)
    for (const path of paths) expect(path.startsWith(`${prefix}/`)).toBe(true)
    for (const expected of ['login', 'refresh', 'logout', 'users/me', 'users/search', 'users/{user_id}', 'users/{user_id}/avatar', 'posts', 'posts/{post_id}']) {
      expect(paths).toContain(`${prefix}/${expected}`)
    }
  })

  it("declares the OAuth2 password flow against the version's own login", async () => {
    const doc = await document()
    expect(doc.components.securitySchemes.OAuth2PasswordBearer.flows.password.tokenUrl).toBe(`${prefix}/login`)
    expect(doc.paths[`${prefix}/users/me`].get.security).toEqual([{ OAuth2PasswordBearer: [] }, { ApiKeyHeader: [] }])
    // Keys, sessions, passwords and email are for logged-in users only.
    expect(doc.paths[`${prefix}/sessions`].get.security).toEqual([{ OAuth2PasswordBearer: [] }])
    expect(doc.components.securitySchemes.ApiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
  })

  it('describes request and response schemas and error responses', async () => {
    const doc = await document()
    const create = doc.paths[`${prefix}/users`].post
    expect(create.requestBody.content['application/json'].schema.properties.email).toBeDefined()
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '409', '422']))
    expect(create.responses['422'].content['application/json'].schema.properties.errors).toBeDefined()
    const avatar = doc.paths[`${prefix}/users/{user_id}/avatar`].post
    expect(avatar.requestBody.content['multipart/form-data'].schema.properties.file.format).toBe('binary')
    const login = doc.paths[`${prefix}/login`].post
    expect(Object.keys(login.requestBody.content)).toEqual(expect.arrayContaining(['application/x-www-form-urlencoded', 'application/json']))
    expect(version === 'v2' ? create.requestBody.content['application/json'].schema.required : []).toEqual(
      version === 'v2' ? expect.arrayContaining(['accept_terms']) : [],
    )
  })

  it('serves Swagger UI at <prefix>/docs, reading the same document', async () => {
    const page = await t.app.inject({ url: `${prefix}/docs` })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    // A page's browser policy (helmet), not the API's "load nothing" one.
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.body).toContain('swagger-ui')
    const viaUi = await t.app.inject({ url: `${prefix}/docs/json` })
    expect(viaUi.json().paths).toEqual((await document()).paths)
  })
})
