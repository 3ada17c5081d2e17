// Whether a password is in known breaches: Have I Been Pwned's range API (k-anonymity: only the
// first five hex characters of the password's SHA-1 leave the service, with padding so the answer's
// size tells nothing; each prefix's answer is cached), or a local file of SHA-1 hashes sorted as
// HIBP publishes them (searched by seeking, never read whole), or nothing.
import { createHash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { open } from 'node:fs/promises'

import type { BreachedPasswordSource } from './settings.js'

/** How often the password was seen in breaches (0: never); throws when the source cannot answer. */
export interface BreachList {
  timesSeen(password: string): Promise<number>
}

const sha1 = (password: string) => createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase()

const CACHED_PREFIXES = 512
const CACHE_MS = 24 * 60 * 60 * 1000
const TIMEOUT_MS = 2000

export class RangeApiList implements BreachList {
  /** Prefix → the range's text and when it was fetched; the oldest goes first once full. */
  private readonly cache = new Map<string, { text: string; at: number }>()
  private readonly inFlight = new Map<string, Promise<string>>()

  constructor(private readonly baseUrl: string) {}

  async timesSeen(password: string): Promise<number> {
    const hash = sha1(password)
    const text = await this.range(hash.slice(0, 5))
    const suffix = `${hash.slice(5)}:`
    const at = text.indexOf(suffix)
    if (at === -1) return 0
    const end = text.indexOf('\n', at)
    // Padding lines carry a count of 0.
    return Number.parseInt(text.slice(at + suffix.length, end === -1 ? undefined : end), 10) || 0
  }

  private async range(prefix: string): Promise<string> {
    const cached = this.cache.get(prefix)
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.text
    const running = this.inFlight.get(prefix)
    if (running) return running
    const fetching = this.fetchRange(prefix).finally(() => this.inFlight.delete(prefix))
    this.inFlight.set(prefix, fetching)
    return fetching
  }

  private async fetchRange(prefix: string): Promise<string> {
    const answer = await fetch(`${this.baseUrl}/range/${prefix}`, { headers: { 'add-padding': 'true', 'user-agent': 'user-post-service' }, signal: AbortSignal.timeout(TIMEOUT_MS) })
    if (!answer.ok) throw new Error(`the breach list answered ${answer.status}`)
    const text = (await answer.text()).toUpperCase()
    this.cache.delete(prefix)
    this.cache.set(prefix, { text, at: Date.now() })
    if (this.cache.size > CACHED_PREFIXES) this.cache.delete(this.cache.keys().next().value as string)
    return text
  }
}

/** A file of `SHA1[:COUNT]` lines in hash order (HIBP's "ordered by hash" download): a binary search over byte offsets. */
export class HashFileList implements BreachList {
  private file: Promise<{ handle: FileHandle; size: number }> | undefined

  constructor(private readonly path: string) {}

  async timesSeen(password: string): Promise<number> {
    const target = sha1(password)
    const { handle, size } = await (this.file ??= open(this.path, 'r').then(async (handle) => ({ handle, size: (await handle.stat()).size })))
    let low = 0
    let high = size
    while (low < high) {
      const middle = Math.floor((low + high) / 2)
      const line = await lineFrom(handle, middle, size)
      if (!line || line.start >= high) {
        high = middle
        continue
      }
      const hash = line.text.slice(0, 40).toUpperCase()
      if (hash === target) return Number.parseInt(line.text.slice(41), 10) || 1
      if (hash < target) low = line.end
      else high = middle
    }
    return 0
  }

  async close(): Promise<void> {
    if (this.file) await (await this.file).handle.close()
  }
}

/** The first whole line that starts at or after `position`. */
async function lineFrom(handle: FileHandle, position: number, size: number): Promise<{ start: number; end: number; text: string } | undefined> {
  const from = Math.max(0, position - 1)
  const buffer = Buffer.alloc(Math.min(256, size - from))
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, from)
  const chunk = buffer.subarray(0, bytesRead)
  const startInChunk = position === 0 ? 0 : chunk.indexOf(10) + 1
  if (position !== 0 && startInChunk === 0) return undefined
  const endInChunk = chunk.indexOf(10, startInChunk)
  const text = chunk.subarray(startInChunk, endInChunk === -1 ? chunk.length : endInChunk).toString('latin1').trim()
  if (text === '') return undefined
  return { start: from + startInChunk, end: from + (endInChunk === -1 ? chunk.length : endInChunk + 1), text }
}

export function breachListOf(source: BreachedPasswordSource): BreachList | undefined {
  if (source.kind === 'hibp') return new RangeApiList(source.url)
  if (source.kind === 'file') return new HashFileList(source.path)
  return undefined
}
