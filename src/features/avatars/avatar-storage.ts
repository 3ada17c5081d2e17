// Where avatar bytes live. Local disk (in DATA_DIR) suits one server; the database driver lets
// several servers share avatars through the database they already share.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

import type { AvatarsRepository } from './avatars.repository.js'
import { contentTypeForExtension } from './image-type.js'

export interface StoredImage {
  data: Buffer
  contentType: string
}

export interface AvatarStorage {
  save(name: string, image: StoredImage): Promise<void>
  load(name: string): Promise<StoredImage | undefined>
  remove(name: string): Promise<void>
}

export class DiskAvatarStorage implements AvatarStorage {
  constructor(private readonly directory: string) {}

  async save(name: string, image: StoredImage): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 })
    // Write then rename, so a reader never sees half a file.
    const temporary = path.join(this.directory, `.${name}.tmp`)
    await writeFile(temporary, image.data, { mode: 0o600 })
    await rename(temporary, path.join(this.directory, name))
  }

  async load(name: string): Promise<StoredImage | undefined> {
    const contentType = contentTypeForExtension(path.extname(name).slice(1))
    if (!contentType) return undefined
    try {
      return { data: await readFile(path.join(this.directory, name)), contentType }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async remove(name: string): Promise<void> {
    await rm(path.join(this.directory, name), { force: true })
  }
}

export class DatabaseAvatarStorage implements AvatarStorage {
  constructor(private readonly repository: AvatarsRepository) {}

  save(name: string, image: StoredImage): Promise<void> {
    return this.repository.insertAvatar(name, image.contentType, image.data)
  }

  async load(name: string): Promise<StoredImage | undefined> {
    const row = await this.repository.findAvatar(name)
    return row && { data: Buffer.from(row.data), contentType: row.content_type }
  }

  remove(name: string): Promise<void> {
    return this.repository.deleteAvatar(name)
  }
}
