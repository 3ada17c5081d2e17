// The local driver: objects are files under a directory (DATA_DIR), written to a temporary name
// and renamed into place, so a reader or a crash never leaves half an object under its key; what a
// crash leaves (`<object>.partial-<id>`) goes when its key is removed. Files are spread over 256
// folders by their name's first two characters (files/ab/ab12…), so no folder grows past what a
// directory listing handles quickly; avatars stay where they always were (avatars/<name>).
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { copyFile, mkdir, open, opendir, readdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import type { BlobStore, ByteRange, ObjectRead, StoredObject } from './blob-store.js'
import { assertKey } from './blob-store.js'

/** Left behind by a crash mid-write; the sweep removes it like any object nobody counts. */
const PARTIAL = '.partial-'

export class LocalBlobStore implements BlobStore {
  constructor(private readonly directory: string) {}

  async put(key: string, body: Readable | Buffer, _contentType: string, signal?: AbortSignal): Promise<void> {
    const target = this.pathOf(key)
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
    const temporary = `${target}${PARTIAL}${randomUUID()}`
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temporary, { mode: 0o600 }), ...(signal ? [{ signal }] : []))
      await rename(temporary, target)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
  }

  /**
   * The file is opened here, not when the stream is first read: an object removed after this
   * answers stays readable to its reader, where a stream opened later would fail with ENOENT,
   * and fail the process when nobody listened to it yet.
   */
  async get(key: string, range?: ByteRange): Promise<ObjectRead | undefined> {
    let handle: FileHandle
    try {
      handle = await open(this.pathOf(key), 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
    try {
      const info = await handle.stat()
      if (!info.isFile()) {
        await handle.close()
        return undefined
      }
      return { body: handle.createReadStream(range ?? {}), size: info.size }
    } catch (error) {
      await handle.close()
      throw error
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const info = await stat(this.pathOf(key))
      return info.isFile() ? { key, size: info.size, lastModified: info.mtime } : undefined
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async copy(from: string, to: string): Promise<boolean> {
    const source = this.pathOf(from)
    const target = this.pathOf(to)
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
    const temporary = `${target}${PARTIAL}${randomUUID()}`
    try {
      await copyFile(source, temporary)
      await rename(temporary, target)
      return true
    } catch (error) {
      await rm(temporary, { force: true })
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
  }

  async remove(key: string): Promise<void> {
    const target = this.pathOf(key)
    await rm(target, { force: true })
    const partial = `${path.basename(target)}${PARTIAL}`
    const siblings = await readdir(path.dirname(target)).catch(() => [] as string[])
    for (const name of siblings) if (name.startsWith(partial)) await rm(path.join(path.dirname(target), name), { force: true })
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const root = path.join(this.directory, prefix.split('/')[0] ?? '')
    for await (const file of walk(root)) {
      const key = keyOf(path.relative(this.directory, file).split(path.sep))
      if (!key.startsWith(prefix)) continue
      const info = await stat(file).catch(() => undefined)
      if (info?.isFile()) yield { key, size: info.size, lastModified: info.mtime }
    }
  }

  private pathOf(key: string): string {
    assertKey(key)
    const [top, ...rest] = key.split('/')
    const name = rest.join('/')
    return top === 'files' ? path.join(this.directory, top, name.slice(0, 2), ...rest) : path.join(this.directory, ...key.split('/'))
  }
}

/** The key of a file's path under the directory: files/ab/ab12… is files/ab12…. */
function keyOf(parts: string[]): string {
  return parts[0] === 'files' && parts.length > 2 ? ['files', ...parts.slice(2)].join('/') : parts.join('/')
}

async function* walk(directory: string): AsyncIterable<string> {
  let entries
  try {
    entries = await opendir(directory)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  for await (const entry of entries) {
    const full = path.join(directory, entry.name)
    if (entry.isDirectory()) yield* walk(full)
    else if (entry.isFile()) yield full
  }
}

/** The key a partial write would leave: the sweep needs to tell it from a real object. */
export const isPartialKey = (key: string): boolean => key.includes(PARTIAL)
