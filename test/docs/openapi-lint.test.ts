// Both OpenAPI documents pass Redocly's recommended rules (every operation has an operationId,
// public operations declare `security: []`, servers are set) and ours in redocly.yaml (no
// parameter with a default is required), and every error code is documented
// in docs/api.md and in each document's description.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

import { snapshotFile } from '../../scripts/openapi-documents.js'
import { ERROR_CODES } from '../../src/features/index.js'
import { VERSIONS } from '../../src/versions.js'

const root = path.resolve(import.meta.dirname, '../..')
const redocly = path.join(root, 'node_modules', '.bin', 'redocly')
const versions = Object.keys(VERSIONS)
const lint = (files: string[]) =>
  promisify(execFile)(redocly, ['lint', '--format=summary', `--config=${path.join(root, 'redocly.yaml')}`, ...files], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })

describe('OpenAPI documents', () => {
  it('pass redocly lint with the recommended rules, warnings included', async () => {
    // The snapshots equal what the app serves (openapi-snapshot.test.ts).
    const { stdout, stderr } = await lint(versions.map(snapshotFile))
    const report = stdout + stderr
    expect(report).toContain('Your API descriptions are valid')
    expect(report).not.toMatch(/\b(error|warning)\s+[a-z0-9-]+: \d+/)
  }, 300_000)

  it('would fail on a required query parameter that has a default (the rule runs)', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'ups-redocly-'))
    try {
      const file = path.join(directory, 'defaulted.json')
      const parameter = { name: 'page', in: 'query', required: true, schema: { type: 'integer', default: 1 } }
      const operation = { operationId: 'listThings', security: [], parameters: [parameter], responses: { 200: { description: 'Things' }, 400: { description: 'Bad' } } }
      const document = { openapi: '3.1.0', info: { title: 'T', version: '1', license: { name: 'MIT', identifier: 'MIT' } }, servers: [{ url: '/' }], paths: { '/things': { get: operation } } }
      await writeFile(file, JSON.stringify(document))
      const failed = await lint([file]).then(
        () => 'passed',
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
      )
      expect(failed).toMatch(/rule\/defaulted-parameter-optional: 1/)
    } finally {
      await rm(directory, { recursive: true, force: true })
    }
  }, 300_000)

  it('and docs/api.md list every error code', async () => {
    const apiDoc = await readFile(path.join(root, 'docs', 'api.md'), 'utf8')
    for (const version of versions) {
      const document = JSON.parse(await readFile(snapshotFile(version), 'utf8')) as { info: { description: string } }
      for (const code of Object.keys(ERROR_CODES)) {
        expect(apiDoc, `docs/api.md lacks ${code}`).toContain(`| \`${code}\` |`)
        expect(document.info.description, `${version} lacks ${code}`).toContain(`| \`${code}\` |`)
      }
    }
  })
})
