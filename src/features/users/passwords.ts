import { HashingError, HashingPool } from './hashing-pool.js'

// argon2id at OWASP's recommended minimum: 19 MiB memory, 2 passes, 1 lane. Hashing runs in
// worker threads (hashing-pool.ts), never on the event loop, and by default leaves it a core.
export const PASSWORD_HASH_PARAMETERS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, which isolatedModules cannot import)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const

/**
 * A real hash of a random password nobody kept, with the parameters above, so a login for an
 * unknown user costs the same as for a known one, from the first. It can only ever fail to
 * verify; a test holds its parameters to PASSWORD_HASH_PARAMETERS.
 */
export const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$ix+SBEFluFRxvi4nSRQMYg$RkjAlbZLjI0J8D2Ah4xXcCggJfYD7BuxVfjkuEedYUk'

export interface PasswordHashingOptions {
  /** Hashes at once (PASSWORD_HASH_WORKERS): one worker thread each. */
  workers: number
  /** Hashes that may wait for a worker (PASSWORD_HASH_QUEUE); past them, 503 password_hashing_busy. */
  queue: number
  /** The workers' scheduling priority, 0 to 19 (PASSWORD_HASH_NICE). */
  nice: number
}

export class PasswordHasher {
  private readonly pool: HashingPool

  constructor(options: PasswordHashingOptions = { workers: 1, queue: 100, nice: 0 }) {
    this.pool = new HashingPool(options.workers, options.queue, options.nice)
  }

  hash(password: string): Promise<string> {
    return this.pool.run<string>({ operation: 'hash', password, parameters: PASSWORD_HASH_PARAMETERS })
  }

  async verify(hashedPassword: string, password: string): Promise<boolean> {
    try {
      return await this.pool.run<boolean>({ operation: 'verify', hashed: hashedPassword, password })
    } catch (error) {
      // A malformed stored hash must read as "wrong password", never as a server error; a full
      // queue is the caller's 503, never a wrong password (it would count as a failed login).
      if (error instanceof HashingError) return false
      throw error
    }
  }

  /** Spends the same time as verify() and always fails. */
  async verifyAgainstDummy(password: string): Promise<false> {
    await this.verify(DUMMY_HASH, password)
    return false
  }

  /** Stops the worker threads (the app's close). */
  close(): Promise<void> {
    return this.pool.close()
  }
}
