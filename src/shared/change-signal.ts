// How processes wake each other when change events are written (the event-streams slice makes
// one: Redis pub/sub, PostgreSQL's LISTEN/NOTIFY in src/db/change-notifications.ts, or none).
export interface ChangeSignal {
  /** Tells every process (this one included) to look for new events; calls close together. */
  notify(): void
  /** Called on every signal, from any process. */
  onSignal(listener: () => void): void
  close(): Promise<void>
}
