import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'

// argon2id at OWASP's recommended minimum: 19 MiB memory, 2 passes, 1 lane.
// Hashing runs on libuv's thread pool, so it never blocks the event loop.
export const PASSWORD_HASH_PARAMETERS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, which isolatedModules cannot import)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const

export class PasswordHasher {
  // A real hash of a random password, so a login for an unknown user costs the same as for a
  // known one. Computed up front so even the first such login takes the usual time.
  private readonly dummyHash: Promise<string> = this.hash(randomBytes(32).toString('hex'))

  hash(password: string): Promise<string> {
    return hash(password, PASSWORD_HASH_PARAMETERS)
  }

  async verify(hashedPassword: string, password: string): Promise<boolean> {
    try {
      return await verify(hashedPassword, password)
    } catch {
      // A malformed stored hash must read as "wrong password", never as a server error.
      return false
    }
  }

  /** Spends the same time as verify() and always fails. */
  async verifyAgainstDummy(password: string): Promise<false> {
    await this.verify(await this.dummyHash, password)
    return false
  }
}
