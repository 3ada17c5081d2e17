import type { StorageSettings } from '../settings.js'
import type { BlobStore } from './blob-store.js'
import { LocalBlobStore } from './local-store.js'
import { reachingStore } from './store-unavailable.js'

export type { BlobStore, ByteRange, ObjectRead, PresignedPut, StoredObject } from './blob-store.js'
export { isPartialKey } from './local-store.js'

export function createBlobStore(settings: StorageSettings): BlobStore {
  return withOutagesAs503(settings.driver === 'local' ? new LocalBlobStore(settings.directory) : lazyS3Store(settings))
}

/**
 * The S3 driver, loaded with the AWS SDK (a megabyte of code) the first time the store is used:
 * a service on local disk never loads it, and one on S3 starts without it.
 */
function lazyS3Store(settings: Extract<StorageSettings, { driver: 's3' }>): BlobStore {
  let loading: Promise<BlobStore> | undefined
  const s3 = () => (loading ??= import('./s3-store.js').then(({ S3BlobStore }) => new S3BlobStore(settings)))
  return {
    put: async (key, body, contentType, signal) => (await s3()).put(key, body, contentType, signal),
    get: async (key, range) => (await s3()).get(key, range),
    head: async (key) => (await s3()).head(key),
    copy: async (from, to) => (await s3()).copy(from, to),
    remove: async (key) => (await s3()).remove(key),
    list: (prefix) => ({
      async *[Symbol.asyncIterator]() {
        yield* (await s3()).list(prefix)
      },
    }),
    presigner: {
      put: async (key, options) => (await s3()).presigner!.put(key, options),
      get: async (key, options) => (await s3()).presigner!.get(key, options),
    },
  }
}

/** The store with every call's outage (network, a full or failing disk, a store's 5xx) answered as 503. */
function withOutagesAs503(store: BlobStore): BlobStore {
  return {
    put: (key, body, contentType, signal) => reachingStore(() => store.put(key, body, contentType, signal)),
    get: (key, range) => reachingStore(() => store.get(key, range)),
    head: (key) => reachingStore(() => store.head(key)),
    copy: (from, to) => reachingStore(() => store.copy(from, to)),
    remove: (key) => reachingStore(() => store.remove(key)),
    list: (prefix) => store.list(prefix),
    ...(store.presigner ? { presigner: store.presigner } : {}),
  }
}
