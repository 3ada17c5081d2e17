import { createHash } from 'node:crypto'

/** A counter or lookup key of bounded length, whatever the text it stands for (SHA-256, hex). */
export function hashedKey(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
