import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'

import { hash, verify } from '@node-rs/argon2'

// argon2id at OWASP's recommended minimum: 19 MiB memory, 2 passes, 1 lane.
// Hashing runs on libuv's thread pool, so it never blocks the event loop.
export const PASSWORD_HASH_PARAMETERS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, which isolatedModules cannot import)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const

/** Runs at most `slots` tasks at once; the rest wait their turn in order. */
class Semaphore {
  private readonly waiting: (() => void)[] = []

  constructor(private slots: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.slots > 0) this.slots -= 1
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.slots += 1
    }
  }
}

export class PasswordHasher {
  // One hash per core at a time: more would not finish sooner, would hold 19 MiB each, and
  // would crowd the event loop's core and the thread pool that file I/O shares.
  private readonly slots = new Semaphore(Math.max(1, availableParallelism()))

  // A real hash of a random password, so a login for an unknown user costs the same as for a
  // known one. Computed up front so even the first such login takes the usual time.
  private readonly dummyHash: Promise<string> = this.hash(randomBytes(32).toString('hex'))

  hash(password: string): Promise<string> {
    return this.slots.run(() => hash(password, PASSWORD_HASH_PARAMETERS))
  }

  async verify(hashedPassword: string, password: string): Promise<boolean> {
    try {
      return await this.slots.run(() => verify(hashedPassword, password))
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
