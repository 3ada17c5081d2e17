// A background pass that runs on a timer and whenever kicked, never two at once in a process: a
// kick during a pass asks for one more pass after it. The outboxes (mail, webhook deliveries)
// run their dispatch this way; several processes may poll one outbox, their claims keep them
// from doing a job twice.
export class PollLoop {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = true

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get isStopped(): boolean {
    return this.stopped
  }

  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.kick(), this.intervalMs).unref()
    this.kick()
  }

  /** Runs a pass soon, or once more after the current one. */
  kick(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          this.kick()
        }
      })
  }

  /** Stops the timer and waits for the pass under way. */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }
}
