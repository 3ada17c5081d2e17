// Where avatar bytes live: the file store (local disk in DATA_DIR, or S3), or the database, which
// lets several servers on local disk share avatars through the database they already share.
import path from 'node:path'

import type { BlobStore } from '../files/index.js'
import type { AvatarsRepository } from './avatars.repository.js'
import { contentTypeForExtension } from './image-type.js'

const PREFIX = 'avatars/'

export interface StoredImage {
  data: Buffer
  contentType: string
}

export interface AvatarStorage {
  save(name: string, image: StoredImage): Promise<void>
  /** Writes new bytes for a stored avatar (the same name, the same type). */
  replace(name: string, image: StoredImage): Promise<void>
  load(name: string): Promise<StoredImage | undefined>
  remove(name: string): Promise<void>
}

/** Avatars in the file store (STORAGE): under avatars/ on local disk (DATA_DIR/avatars, where they always were) or in the S3 bucket. */
export class BlobAvatarStorage implements AvatarStorage {
  constructor(private readonly store: BlobStore) {}

  save(name: string, image: StoredImage): Promise<void> {
    return this.store.put(`${PREFIX}${name}`, image.data, image.contentType)
  }

  replace(name: string, image: StoredImage): Promise<void> {
    return this.save(name, image)
  }

  async load(name: string): Promise<StoredImage | undefined> {
    const contentType = contentTypeForExtension(path.extname(name).slice(1))
    if (!contentType) return undefined
    const object = await this.store.get(`${PREFIX}${name}`)
    if (!object) return undefined
    const chunks: Buffer[] = []
    for await (const chunk of object.body) chunks.push(chunk as Buffer)
    return { data: Buffer.concat(chunks), contentType }
  }

  remove(name: string): Promise<void> {
    return this.store.remove(`${PREFIX}${name}`)
  }
}

export class DatabaseAvatarStorage implements AvatarStorage {
  constructor(private readonly repository: AvatarsRepository) {}

  save(name: string, image: StoredImage): Promise<void> {
    return this.repository.insertAvatar(name, image.contentType, image.data)
  }

  replace(name: string, image: StoredImage): Promise<void> {
    return this.repository.replaceAvatarData(name, image.data)
  }

  async load(name: string): Promise<StoredImage | undefined> {
    const row = await this.repository.findAvatar(name)
    return row && { data: Buffer.from(row.data), contentType: row.content_type }
  }

  remove(name: string): Promise<void> {
    return this.repository.deleteAvatar(name)
  }
}
