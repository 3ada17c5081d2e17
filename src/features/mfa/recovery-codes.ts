// Recovery codes: ten single-use codes shown once, for when the authenticator is lost. Each holds
// 50 random bits (ten base32 characters, shown as two groups of five), so a plain SHA-256 at rest
// is enough: there is no small space to search.
import { randomBytes } from 'node:crypto'

import { hashedKey } from '../../shared/hashed-key.js'

export const RECOVERY_CODE_COUNT = 10
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

function newRecoveryCode(): string {
  const bytes = randomBytes(10)
  const characters = [...bytes].map((byte) => ALPHABET[byte & 31]).join('')
  return `${characters.slice(0, 5)}-${characters.slice(5)}`
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)

/** The stored form: case, spaces and dashes as a person may type them do not matter. */
export const recoveryCodeHash = (code: string): string => hashedKey(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`)
