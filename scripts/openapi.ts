// `npm run openapi` writes each version's served OpenAPI document to docs/openapi/<version>.json;
// `npm run openapi -- --check` fails when what the app serves differs from the committed files.
// test/docs/openapi-snapshot.test.ts runs the same comparison in the suite.
import { readFile, writeFile } from 'node:fs/promises'
import { servedOpenApiDocuments, snapshotFile } from './openapi-documents.js'

const check = process.argv.includes('--check')
let differences = 0
for (const [version, document] of Object.entries(await servedOpenApiDocuments())) {
  const file = snapshotFile(version)
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
