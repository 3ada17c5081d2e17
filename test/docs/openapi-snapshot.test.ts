// Each version's served OpenAPI document equals its committed snapshot in docs/openapi/, so a
// change to the contract is always a visible change to those files (npm run openapi rewrites them).
import { readFile } from 'node:fs/promises'

import { describe, expect, it } from 'vitest'

import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.js'
import { servedOpenApiDocuments, snapshotFile } from '../../scripts/openapi-documents.js'

describe('OpenAPI snapshots', () => {
  it('match what the app serves, byte for byte', async () => {
    const served = await servedOpenApiDocuments()
    for (const [version, document] of Object.entries(served)) {
      expect(document, `${snapshotFile(version)} is out of date: run npm run openapi`).toBe(await readFile(snapshotFile(version), 'utf8'))
    }
  })

  it("match the typed client's committed types (clients/typescript)", async () => {
    const served = await servedOpenApiDocuments()
    expect(await clientTypes(served.v2 ?? ''), `${CLIENT_TYPES_FILE} is out of date: run npm run openapi`).toBe(await readFile(CLIENT_TYPES_FILE, 'utf8'))
  })

  it("carry a deployment's declared custom fields into the client's types when CONTENT_SCHEMA is set (npm run openapi)", async () => {
    const schema = { posts: { properties: { rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public' }, kind: { enum: ['news', 'howto'], visibility: 'private' } }, required: ['kind'] } }
    const types = await clientTypes((await servedOpenApiDocuments(JSON.stringify(schema))).v2 ?? '')
    // The read shape lists both as optional (a reader may not see them); the create requires kind.
    expect(types).toMatch(/fields: \{\s*\/\*\*[^/]*\*\/\s*rating\?: number;\s*\/\*\*[^/]*\*\/\s*kind\?: "news" \| "howto";/)
    expect(types).toMatch(/fields: \{\s*\/\*\*[^/]*\*\/\s*rating\?: number;\s*\/\*\*[^/]*\*\/\s*kind: "news" \| "howto";/)
  })
})
