// Builds the app on a throwaway SQLite directory and returns each version's OpenAPI document
// exactly as served (pretty-printed), for the committed snapshots in docs/openapi/.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { VERSIONS } from '../src/versions.js'

const SNAPSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'openapi')

export const snapshotFile = (version: string) => path.join(SNAPSHOT_DIR, `${version}.json`)

/** `contentSchema`: a CONTENT_SCHEMA setting, for documents that carry a deployment's declared fields. */
export async function servedOpenApiDocuments(contentSchema?: string): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ups-openapi-'))
  const secretKey = 'openapi-snapshot-key-that-is-long-enough-000'
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, SECRET_KEY: secretKey, ...(contentSchema === undefined ? {} : { CONTENT_SCHEMA: contentSchema }) })
  const app = await buildApp({ config, secretKey })
  try {
    const documents: Record<string, string> = {}
    for (const [version, { prefix }] of Object.entries(VERSIONS)) {
      const response = await app.inject({ url: `${prefix}/openapi.json` })
      documents[version] = `${JSON.stringify(response.json(), null, 2)}\n`
    }
    return documents
  } finally {
    await app.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}
