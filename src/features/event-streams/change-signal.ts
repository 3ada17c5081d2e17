// How processes wake each other when change events are written: Redis pub/sub when Redis is
// configured, PostgreSQL's LISTEN/NOTIFY on PostgreSQL, nothing on SQLite alone (its processes
// and cluster workers read the shared file on their timer). A signal says only "look": a lost
// one costs latency until the next timer pass, never an event.
export interface ChangeSignal {
  /** Tells every process (this one included) to look for new events; calls close together. */
  notify(): void
  /** Called on every signal, from any process. */
  onSignal(listener: () => void): void
  close(): Promise<void>
}

/** A signal that crosses no process boundary. */
export class LocalSignal implements ChangeSignal {
  private readonly listeners: (() => void)[] = []

  notify(): void {
    for (const listener of this.listeners) listener()
  }

  onSignal(listener: () => void): void {
    this.listeners.push(listener)
  }

  async close(): Promise<void> {}
}
