import type { StorageSettings } from '../settings.js'
import type { BlobStore } from './blob-store.js'
import { LocalBlobStore } from './local-store.js'
import { S3BlobStore } from './s3-store.js'

export type { BlobStore, ByteRange, ObjectRead, PresignedPut, StoredObject } from './blob-store.js'
export { isPartialKey } from './local-store.js'

export function createBlobStore(settings: StorageSettings): BlobStore {
  return settings.driver === 'local' ? new LocalBlobStore(settings.directory) : new S3BlobStore(settings)
}
