// Taking bytes in: the leading bytes decide the type (file-type, file-content.ts) before the rest
// is read; an image is read whole and goes through the image intake (images/image-intake.ts),
// stored as cleaned; anything else streams to the store, hashed and counted on the way, and is
// never held in memory.
import { createHash } from 'node:crypto'
import { Readable, Transform } from 'node:stream'

import type { Claims } from './file-content.js'
import { acceptedType, sniff, SNIFF_BYTES } from './file-content.js'
import { cleanImage, imageTooManyBytes, isImageType } from './images/image-intake.js'
import type { BlobStore } from './storage/index.js'

/** Images are cleaned in memory: the refusal names the setting that bounds them, and its value. */
const imageTooLargeToClean = (maxBytes: number) => imageTooManyBytes({ maxBytes, maxBytesSetting: 'FILE_MAX_BYTES' })
const imageLimits = (options: IntakeOptions) => ({ maxPixels: options.maxPixels, maxBytes: options.imageMaxBytes, maxBytesSetting: 'FILE_MAX_BYTES' })

/** What the stored object turned out to be. */
export interface StoredFacts {
  size: number
  sha256: string
  contentType: string
}

export interface IntakeOptions {
  allowed: readonly string[]
  maxPixels: number
  /** The largest image read whole to clean it. */
  imageMaxBytes: number
}

interface Head {
  chunks: Buffer[]
  bytes: number
  ended: boolean
  rest: AsyncIterator<Buffer>
}

async function readHead(source: AsyncIterable<Buffer>): Promise<Head> {
  const rest = source[Symbol.asyncIterator]()
  const chunks: Buffer[] = []
  let bytes = 0
  while (bytes < SNIFF_BYTES) {
    const next = await rest.next()
    if (next.done) return { chunks, bytes, ended: true, rest }
    chunks.push(next.value)
    bytes += next.value.length
  }
  return { chunks, bytes, ended: false, rest }
}

async function* remaining(head: Head): AsyncIterable<Buffer> {
  yield* head.chunks
  if (head.ended) return
  for (let next = await head.rest.next(); !next.done; next = await head.rest.next()) yield next.value
}

async function readAll(head: Head, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of remaining(head)) {
    bytes += chunk.length
    if (bytes > maxBytes) throw imageTooLargeToClean(maxBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

function factsOf(data: Buffer, contentType: string): StoredFacts {
  return { size: data.length, sha256: createHash('sha256').update(data).digest('hex'), contentType }
}

/** Counts and hashes what passes through. */
function meter(): Transform & { facts(): { size: number; sha256: string } } {
  const hash = createHash('sha256')
  let size = 0
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      size += chunk.length
      done(null, chunk)
    },
  })
  return Object.assign(transform, { facts: () => ({ size, sha256: hash.digest('hex') }) })
}

/** Sniffs, checks and stores bytes arriving from a client under the key. */
export async function storeFromStream(store: BlobStore, key: string, source: AsyncIterable<Buffer>, claims: Claims, options: IntakeOptions): Promise<StoredFacts> {
  const head = await readHead(source)
  const contentType = acceptedType(await sniff(Buffer.concat(head.chunks), head.ended), claims, options.allowed)
  if (isImageType(contentType)) {
    const cleaned = await cleanImage(await readAll(head, options.imageMaxBytes), contentType, imageLimits(options))
    await store.put(key, cleaned, contentType)
    return factsOf(cleaned, contentType)
  }
  const metered = meter()
  await store.put(key, Readable.from(remaining(head)).pipe(metered), contentType)
  return { ...metered.facts(), contentType }
}

/** Sniffs, checks and hashes an object a client put straight into the store; an image is stored again, cleaned. */
export async function verifyStored(store: BlobStore, key: string, claims: Claims, options: IntakeOptions): Promise<StoredFacts | undefined> {
  const object = await store.get(key)
  if (!object) return undefined
  try {
    const head = await readHead(object.body)
    const contentType = acceptedType(await sniff(Buffer.concat(head.chunks), head.ended), claims, options.allowed)
    if (isImageType(contentType)) {
      if (object.size > options.imageMaxBytes) throw imageTooLargeToClean(options.imageMaxBytes)
      const cleaned = await cleanImage(await readAll(head, options.imageMaxBytes), contentType, imageLimits(options))
      await store.put(key, cleaned, contentType)
      return factsOf(cleaned, contentType)
    }
    const metered = meter()
    for await (const chunk of Readable.from(remaining(head)).pipe(metered)) void chunk
    return { ...metered.facts(), contentType }
  } finally {
    object.body.destroy()
  }
}
