// A secret's id, as tokens and sealed secrets name the SECRET_KEY they were made with (`kid`).
import { createHash } from 'node:crypto'

/** A fingerprint that names the key without revealing it. */
export const keyIdOf = (secret: string) => createHash('sha256').update(`kid:${secret}`).digest('hex').slice(0, 16)
