// Route handlers still running. A client that gives up does not stop its request: the handler
// runs on (a login finishing its hash, then writing the session), though the server has nothing
// left to answer, so the server can close while it does. Shutdown waits for these handlers
// before it closes the password pool and the database under them (src/app.ts).
import { setTimeout as sleep } from 'node:timers/promises'

export class HandlersInFlight {
  private running = 0
  private wake: (() => void) | undefined
  // One callback for every handler: tracking makes no closure per request.
  private readonly ended = () => {
    this.running -= 1
    if (this.running === 0) this.wake?.()
  }

  /** Gives a handler's result back as it is (so Fastify sees no difference), counting it while it runs. */
  track<T>(result: T): T {
    if (result instanceof Promise) {
      this.running += 1
      result.then(this.ended, this.ended)
    }
    return result
  }

  /** Resolves once no handler runs, or after `timeoutMs` with those still running (their count). */
  async settled(timeoutMs: number): Promise<number> {
    if (this.running === 0) return 0
    const timedOut = new AbortController()
    const none = new Promise<void>((resolve) => (this.wake = resolve))
    try {
      await Promise.race([none, sleep(timeoutMs, undefined, { signal: timedOut.signal }).catch(() => {})])
    } finally {
      this.wake = undefined
      timedOut.abort()
    }
    return this.running
  }
}
