// What a start loads, with the default settings: the built service (as `npm start` runs it),
// started with a recorder of every module it loads, must answer /ready without loading any of
// the heavy packages a feature brings (images, S3, mail templates, GeoIP, user agents, ZIPs, file
// sniffing, address lists, providers, passkeys, databases and exporters it was not configured
// for). Each is loaded the first time its feature needs it. Packages bundled into the build count
// by the chunks the start loaded (the build's metafile names their packages), packages Node loads
// by their path. A feature that imports one at start fails here; not a timing.
import { readFile } from 'node:fs/promises'
import path from 'node:path'

import { expect, inject, it } from 'vitest'

import { loadedPackages } from '../scripts/loaded-at-start/packages.mjs'
import { emptyDirectory, startServer, stopServers } from './helpers/process.js'
import { EVENT_DEADLINE_MS, waitFor } from './helpers/wait.js'

/** Loaded when their feature is used or its setting turns it on, never by a start with the defaults. */
const HEAVY = [
  'sharp',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@aws-sdk/s3-request-presigner',
  '@smithy/core',
  'messageformat',
  'maxmind',
  'mmdb-lib',
  'ua-parser-js',
  'yazl',
  'file-type',
  'strtok3',
  'tldts',
  'mailchecker',
  '@zxcvbn-ts/core',
  '@zxcvbn-ts/language-common',
  'qrcode',
  '@simplewebauthn/server',
  'openid-client',
  'nodemailer',
  'pg',
  'ioredis',
  'prom-client',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
]

const RECORDER = path.resolve(import.meta.dirname, '../scripts/loaded-at-start/record.mjs')

it('loads none of the heavy packages at a start with the default settings', async () => {
  const cwd = await emptyDirectory()
  const record = path.join(cwd, 'loaded.txt')
  const server = await startServer({ DATA_DIR: path.join(cwd, 'data'), NODE_OPTIONS: `--import=${RECORDER}`, LOADED_MODULES_FILE: record }, cwd)
  try {
    await waitFor(async () => (await fetch(`${server.url}/ready`)).status === 200)
    const loaded = loadedPackages(await readFile(record, 'utf8'), path.dirname(inject('serverBundle')))
    const names = loaded.map((entry) => entry.name)
    // The recorder saw the start: the framework, the SQL builder and the SQLite driver are there.
    expect(names).toEqual(expect.arrayContaining(['fastify', 'kysely', 'typebox']))
    expect(names.some((name) => name.startsWith('better-sqlite3'))).toBe(true)
    expect(names.filter((name) => HEAVY.includes(name))).toEqual([])
  } finally {
    await stopServers(server)
  }
}, EVENT_DEADLINE_MS * 2)
