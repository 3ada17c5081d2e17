import type { StorageSettings } from '../settings.js'
import type { BlobStore } from './blob-store.js'
import { LocalBlobStore } from './local-store.js'
import { S3BlobStore } from './s3-store.js'
import { reachingStore } from './store-unavailable.js'

export type { BlobStore, ByteRange, ObjectRead, PresignedPut, StoredObject } from './blob-store.js'
export { isPartialKey } from './local-store.js'

export function createBlobStore(settings: StorageSettings): BlobStore {
  return withOutagesAs503(settings.driver === 'local' ? new LocalBlobStore(settings.directory) : new S3BlobStore(settings))
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
