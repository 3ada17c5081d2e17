// One contract for every storage driver: local disk and S3 (a real S3 server on loopback).
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestS3Server } from '../../../../test/helpers/s3.js'
import { startS3Server } from '../../../../test/helpers/s3.js'
import type { BlobStore } from './blob-store.js'
import { LocalBlobStore } from './local-store.js'
import { S3BlobStore } from './s3-store.js'

interface Driver {
  name: string
  open(): Promise<{ store: BlobStore; close(): Promise<void> }>
}

const drivers: Driver[] = [
  {
    name: 'local',
    async open() {
      const directory = await mkdtemp(path.join(tmpdir(), 'ups-store-'))
      return { store: new LocalBlobStore(directory), close: () => rm(directory, { recursive: true, force: true }) }
    },
  },
  {
    name: 's3',
    async open() {
      const server: TestS3Server = await startS3Server()
      const store = new S3BlobStore({ driver: 's3', endpoint: server.endpoint, region: 'us-east-1', bucket: server.bucket, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true })
      return {
        store,
        async close() {
          store.close()
          await server.close()
        },
      }
    },
  },
]

async function keysUnder(store: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const object of store.list(prefix)) keys.push(object.key)
  return keys.sort()
}

describe.each(drivers)('storage driver: $name', (driver) => {
  let store: BlobStore
  let close: () => Promise<void>

  beforeAll(async () => {
    ;({ store, close } = await driver.open())
  })
  afterAll(() => close())

  it('puts a buffer and gets it back, whole and by range', async () => {
    await store.put('files/contract/a.txt', Buffer.from('hello, storage'), 'text/plain')
    const whole = await store.get('files/contract/a.txt')
    expect(whole?.size).toBe(14)
    expect(await text(whole!.body)).toBe('hello, storage')
    const part = await store.get('files/contract/a.txt', { start: 7, end: 13 })
    expect(part?.size).toBe(14)
    expect(await text(part!.body)).toBe('storage')
  })

  it('puts a stream of unknown length larger than one multipart part', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const chunks = Array.from({ length: 6 }, () => chunk)
    await store.put('files/contract/big.bin', Readable.from(chunks), 'application/octet-stream')
    expect((await store.head('files/contract/big.bin'))?.size).toBe(6 * 1024 * 1024)
  })

  it('reads an object whole when it is removed between the get and the first read', async () => {
    await store.put('files/contract/leaving.txt', Buffer.from('read me anyway'), 'text/plain')
    const read = await store.get('files/contract/leaving.txt')
    await store.remove('files/contract/leaving.txt')
    expect(await text(read!.body)).toBe('read me anyway')
  })

  it('stops a write when its signal aborts, and stores nothing under the key', async () => {
    const stopping = new AbortController()
    // A body that sends one chunk and then waits, as a build waiting on its next rows does.
    const body = new Readable({ read() {} })
    body.push(Buffer.alloc(1024, 'x'))
    const writing = store.put('files/contract/stopped.bin', body, 'application/octet-stream', stopping.signal)
    stopping.abort(new Error('stopping'))
    await expect(writing).rejects.toThrow()
    expect(await store.head('files/contract/stopped.bin')).toBeUndefined()
    await expect(store.put('files/contract/stopped.bin', Buffer.from('late'), 'text/plain', stopping.signal)).rejects.toThrow()
    expect(await store.head('files/contract/stopped.bin')).toBeUndefined()
  })

  it('replaces an object under the same key', async () => {
    await store.put('files/contract/b.txt', Buffer.from('first'), 'text/plain')
    await store.put('files/contract/b.txt', Buffer.from('second'), 'text/plain')
    expect(await text((await store.get('files/contract/b.txt'))!.body)).toBe('second')
  })

  it('answers undefined for a missing object, and removing one is not an error', async () => {
    expect(await store.get('files/contract/missing')).toBeUndefined()
    expect(await store.head('files/contract/missing')).toBeUndefined()
    await store.remove('files/contract/missing')
  })

  it('copies an object inside the store, and says when there is none to copy', async () => {
    await store.put('files/contract/original.txt', Buffer.from('original'), 'text/plain')
    expect(await store.copy('files/contract/original.txt', 'files/contract/copy.txt')).toBe(true)
    await store.put('files/contract/original.txt', Buffer.from('changed'), 'text/plain')
    expect(await text((await store.get('files/contract/copy.txt'))!.body)).toBe('original')
    expect(await store.copy('files/contract/none.txt', 'files/contract/nothing.txt')).toBe(false)
    expect(await store.head('files/contract/nothing.txt')).toBeUndefined()
  })

  it('removes an object', async () => {
    await store.put('files/contract/gone.txt', Buffer.from('bye'), 'text/plain')
    await store.remove('files/contract/gone.txt')
    expect(await store.head('files/contract/gone.txt')).toBeUndefined()
  })

  it('lists the objects under a prefix with their sizes and times', async () => {
    await store.put('files/listing/one', Buffer.from('1'), 'text/plain')
    await store.put('files/listing/deeper/two', Buffer.from('22'), 'text/plain')
    await store.put('avatars/listing-three', Buffer.from('333'), 'text/plain')
    expect(await keysUnder(store, 'files/listing/')).toEqual(['files/listing/deeper/two', 'files/listing/one'])
    for await (const object of store.list('files/listing/')) {
      expect(object.size).toBe(object.key.endsWith('two') ? 2 : 1)
      expect(Math.abs(object.lastModified.getTime() - Date.now())).toBeLessThan(60_000)
    }
  })

  it('refuses a key outside its prefixes', async () => {
    await expect(store.put('../escape', Buffer.from('x'), 'text/plain')).rejects.toThrow(/not a storage key/)
    await expect(store.get('files/../../etc/passwd')).rejects.toThrow(/not a storage key/)
  })

  it.runIf(driver.name === 's3')('signs a PUT a client makes straight to the store, and a GET', async () => {
    const put = await store.presigner!.put('files/contract/direct.txt', { contentType: 'text/plain', size: 6, expiresSeconds: 60 })
    expect(new URL(put.url).searchParams.get('X-Amz-SignedHeaders')).toContain('content-type')
    expect(put.url).not.toContain('x-amz-checksum')
    const sent = await fetch(put.url, { method: 'PUT', headers: put.headers, body: 'direct' })
    expect(sent.status).toBe(200)
    const url = await store.presigner!.get('files/contract/direct.txt', { expiresSeconds: 60, contentType: 'text/plain', disposition: 'inline' })
    const got = await fetch(url)
    expect(got.status).toBe(200)
    expect(await got.text()).toBe('direct')
  })

  it.runIf(driver.name === 'local')('removes what a crash mid-write left beside an object with the object', async () => {
    const directory = (store as unknown as { directory: string }).directory
    await store.put('files/crashed.bin', Buffer.from('whole'), 'application/octet-stream')
    const shard = path.join(directory, 'files', 'cr')
    await writeFile(path.join(shard, 'crashed.bin.partial-1234'), 'half')
    expect((await keysUnder(store, 'files/crashed')).sort()).toEqual(['files/crashed.bin', 'files/crashed.bin.partial-1234'])
    await store.remove('files/crashed.bin')
    expect(await readdir(shard)).toEqual([])
  })

  it.runIf(driver.name === 'local')('has no presigner: uploads go through the service', () => {
    expect(store.presigner).toBeUndefined()
  })
})
