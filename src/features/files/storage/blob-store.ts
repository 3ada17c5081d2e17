// Where stored bytes live, behind one interface: local disk (the default) or any S3-compatible
// store. Keys are the service's own (files/…, avatars/…, exports/…), never a client's words. One contract
// suite (blob-store.contract.test.ts) runs against both drivers.
import type { Readable } from 'node:stream'

/** A byte range, both ends included, as HTTP's Range header names it. */
export interface ByteRange {
  start: number
  end: number
}

export interface StoredObject {
  key: string
  size: number
  lastModified: Date
}

export interface ObjectRead {
  body: Readable
  /** The whole object's size (not the range's). */
  size: number
}

/** A PUT a client makes straight to the store: where, and the headers it must send. */
export interface PresignedPut {
  url: string
  headers: Record<string, string>
}

export interface BlobStore {
  /**
   * Stores the bytes under the key, replacing what was there; a reader never sees half an object.
   * `signal` stops the write at once, even one waiting on a store that stopped answering (it
   * rejects, and nothing is stored under the key).
   */
  put(key: string, body: Readable | Buffer, contentType: string, signal?: AbortSignal): Promise<void>
  /** The object's bytes (a range of them when asked); undefined when there is none. */
  get(key: string, range?: ByteRange): Promise<ObjectRead | undefined>
  head(key: string): Promise<StoredObject | undefined>
  /** A copy of the object under another key, made inside the store; false when there was none to copy. */
  copy(from: string, to: string): Promise<boolean>
  /** Removing an object that is not there is not an error. */
  remove(key: string): Promise<void>
  /** Every object under the prefix, in no particular order. */
  list(prefix: string): AsyncIterable<StoredObject>
  /** Only stores a client can reach directly sign URLs: the local driver has none. */
  readonly presigner?: {
    put(key: string, options: { contentType: string; size: number; expiresSeconds: number }): Promise<PresignedPut>
    get(key: string, options: { expiresSeconds: number; contentType: string; disposition: string }): Promise<string>
  }
}

const KEY = /^(?:files|avatars|exports)\/[A-Za-z0-9][A-Za-z0-9._/-]{0,200}$/

/** Keys are generated, but a bug must not reach outside the store's own prefixes. */
export function assertKey(key: string): void {
  if (!KEY.test(key) || key.includes('..') || key.includes('//')) throw new Error(`not a storage key: ${JSON.stringify(key)}`)
}
