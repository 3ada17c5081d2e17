// `npm run openapi` writes each version's served OpenAPI document to docs/openapi/<version>.json,
// and the typed client's types generated from v2 to clients/typescript/src/schema.d.ts;
// `npm run openapi -- --check` fails when what the app serves differs from the committed files.
// test/docs/openapi-snapshot.test.ts runs the same comparison in the suite.
// With CONTENT_SCHEMA set, only the typed client's types are written, with the declared custom
// fields, for a deployment's own client build (clients/typescript/README.md); the committed
// documents describe the service without any.
import { readFile, writeFile } from 'node:fs/promises'

import { CLIENT_TYPES_FILE, clientTypes } from './client-types.js'
import { servedOpenApiDocuments, snapshotFile } from './openapi-documents.js'

const check = process.argv.includes('--check')
// The script's own setting: it builds the app as a deployment with these fields would.
const contentSchema = process.env.CONTENT_SCHEMA
let differences = 0
const documents = await servedOpenApiDocuments(contentSchema)
const files: [string, string][] = contentSchema ? [] : Object.entries(documents).map(([version, document]) => [snapshotFile(version), document])
files.push([CLIENT_TYPES_FILE, await clientTypes(documents.v2 ?? '')])
for (const [file, document] of files) {
  if (!check) {
    await writeFile(file, document)
    console.log(`wrote ${file}`)
    continue
  }
  const committed = await readFile(file, 'utf8').catch(() => '')
  if (committed !== document) {
    differences += 1
    console.error(`${file} differs from the document the app serves (run npm run openapi)`)
  }
}
if (differences > 0) process.exit(1)
