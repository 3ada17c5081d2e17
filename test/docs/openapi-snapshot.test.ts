// Each version's served OpenAPI document equals its committed snapshot in docs/openapi/, so a
// change to the contract is always a visible change to those files (npm run openapi rewrites them).
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { servedOpenApiDocuments, snapshotFile } from '../../scripts/openapi-documents.js'

describe('OpenAPI snapshots', () => {
  it('match what the app serves, byte for byte', async () => {
    const served = await servedOpenApiDocuments()
    for (const [version, document] of Object.entries(served)) {
      expect(document, `${snapshotFile(version)} is out of date: run npm run openapi`).toBe(await readFile(snapshotFile(version), 'utf8'))
    }
  })
})
