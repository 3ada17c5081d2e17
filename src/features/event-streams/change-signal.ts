// How processes wake each other when change events are written: Redis pub/sub when Redis is
// configured, PostgreSQL's LISTEN/NOTIFY on PostgreSQL, nothing on SQLite alone (its processes
// and cluster workers read the shared file on their timer). A signal says only "look": a lost
// one costs latency until the next timer pass, never an event.
import type { ChangeSignal } from '../../shared/change-signal.js'

export type { ChangeSignal }

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
