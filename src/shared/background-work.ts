// Work a service starts after its answer is sent (a mail whose lookup must not make the answer
// slower for registered addresses than for unknown ones). Shutdown waits for it through settle().
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>()

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Starts `work` without waiting for it; a failure goes to onError, never to the caller. */
  start(work: () => Promise<void>): void {
    const promise: Promise<void> = work()
      .catch((error: unknown) => this.onError(error))
      .finally(() => this.running.delete(promise))
    this.running.add(promise)
  }

  /** Resolves once every started piece of work is done. */
  async settle(): Promise<void> {
    await Promise.all(this.running)
  }
}
