// The one scheduler of a process's background work: the outbox relays (mail, webhook
// deliveries), the change feed of the realtime streams, cleanup, the limiter's flush and rule
// reload, scheduled backups. Each is a registered job with its interval, jitter and place in the
// shutdown order. A job never runs twice at once in a process (several processes may run it:
// their claims keep them from doing one piece of work twice). A job whose run found nothing
// waits twice as long before the next, up to its idle interval, so an idle service does not poll
// every second; a kick (a commit that queued work) runs it at once and brings it back to its
// shortest interval.
import { AsyncResource } from 'node:async_hooks'

/**
 * What a run says: `false` when it found nothing to do (the job backs off); a number when it
 * found nothing now but knows its next work is due in that many ms (it sleeps until then, within
 * its intervals); anything else means work was done.
 */
export type RunResult = boolean | number | void

/** A run's answer when it found nothing and its next work is due at `dueAt` (epoch ms): how long to sleep, or false when nothing is waiting. */
export function untilDue(dueAt: number | undefined): number | false {
  return dueAt === undefined ? false : Math.max(0, dueAt - Date.now())
}

export interface JobOptions {
  /** Names the job in logs and to `kick(name)`. */
  name: string
  /** The wait after a run that found work, and the first one. */
  intervalMs: number
  /** While runs find nothing, the wait doubles up to this; the default keeps a fixed rhythm. */
  idleIntervalMs?: number
  /** Each wait is stretched or shrunk by up to this fraction at random, so processes do not run in step (0.1 unless said). */
  jitter?: number
  /** Jobs stop in ascending order (0 unless said); each stop waits for the run under way. */
  stopOrder?: number
  /** Starts the job's first run with the scheduler (true unless said); false waits one interval first. */
  runAtStart?: boolean
  /** One run. `signal` aborts when the job stops: a long run returns at its next step. */
  run(signal: AbortSignal): Promise<RunResult>
}

export class Job {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  /** soon() was asked during a run: the next wait is the shortest, whatever the run found. */
  private dueSoon = false
  private started = false
  private waitMs: number
  private readonly stopping = new AbortController()
  /**
   * Runs in the context the job was registered in (the process's start), never in that of the
   * request whose commit kicked it: what a request carries (its replica reads,
   * src/db/replicas/request-reads.ts) must not follow it into background work.
   */
  private readonly outsideRequests = AsyncResource.bind(<T>(run: () => T): T => run())

  constructor(
    readonly options: Required<Omit<JobOptions, 'run'>> & Pick<JobOptions, 'run'>,
    private readonly onError: (error: unknown, job: string) => void,
  ) {
    this.waitMs = options.intervalMs
  }

  get name(): string {
    return this.options.name
  }

  /** The wait before the next run, as it stands (tests, metrics). */
  get currentWaitMs(): number {
    return this.waitMs
  }

  start(): void {
    if (this.started || this.stopping.signal.aborted) return
    this.started = true
    if (this.options.runAtStart) this.kick()
    else this.schedule()
  }

  /** Runs soon, at the shortest interval again; during a run, once more after it. */
  kick(): void {
    this.trigger(true)
  }

  /**
   * Runs within the shortest interval, not at once: work was queued that can wait a moment and go
   * with more in one run (counted hits to flush). Cheap when already due that soon.
   */
  soon(): void {
    if (!this.started || this.stopping.signal.aborted) return
    if (this.running) {
      this.dueSoon = true
      return
    }
    if (this.waitMs === this.options.intervalMs && this.timer !== undefined) return
    this.waitMs = this.options.intervalMs
    this.schedule()
  }

  /** Runs now, or once more after the run under way; a kick (not the timer) also ends the backoff. */
  private trigger(endBackoff: boolean): void {
    if (!this.started || this.stopping.signal.aborted) return
    if (endBackoff) this.waitMs = this.options.intervalMs
    if (this.running) {
      this.again = true
      return
    }
    clearTimeout(this.timer)
    this.running = this.outsideRequests(() => this.runOnce()).finally(() => {
      this.running = undefined
      if (this.dueSoon) {
        this.dueSoon = false
        this.waitMs = this.options.intervalMs
      }
      if (this.again) {
        this.again = false
        this.trigger(false)
      } else {
        this.schedule()
      }
    })
  }

  /**
   * Runs until a run finds nothing (after the one under way): the positive signal that what was
   * queued before the call has been worked off, for tests that then check nothing more happened.
   */
  async drain(): Promise<void> {
    for (;;) {
      while (this.running) await this.running
      if (this.stopping.signal.aborted) return
      const outcome: { result: RunResult } = { result: false }
      this.running = this.outsideRequests(() => this.options.run(this.stopping.signal))
        .then((value) => void (outcome.result = value))
        .catch((error: unknown) => this.onError(error, this.name))
        .finally(() => (this.running = undefined))
      await this.running
      // Only a run that did work may have left more (a failed run ends the wait too).
      if (outcome.result !== true) return
    }
  }

  /** Stops the timer, aborts the run under way at its next step and waits for it. */
  async stop(): Promise<void> {
    this.stopping.abort()
    clearTimeout(this.timer)
    await this.running
  }

  private async runOnce(): Promise<void> {
    try {
      const result = await this.options.run(this.stopping.signal)
      // Found nothing: wait longer next time, up to the idle interval.
      if (result === false) this.waitMs = Math.min(this.options.idleIntervalMs, this.waitMs * 2)
      else if (typeof result === 'number') this.waitMs = Math.min(this.options.idleIntervalMs, Math.max(this.options.intervalMs, result))
    } catch (error) {
      this.onError(error, this.name)
    }
  }

  private schedule(): void {
    if (this.stopping.signal.aborted) return
    clearTimeout(this.timer)
    const jitter = 1 + (Math.random() * 2 - 1) * this.options.jitter
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.trigger(false)
    }, Math.round(this.waitMs * jitter)).unref()
  }
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>()
  private started = false

  constructor(private readonly onError: (error: unknown, job: string) => void) {}

  /** Registers a job (once per name); it starts with the scheduler, or at once if that has started. */
  register(options: JobOptions): Job {
    if (this.jobs.has(options.name)) throw new Error(`background job ${options.name} is registered twice`)
    const job = new Job(
      {
        idleIntervalMs: options.intervalMs,
        jitter: 0.1,
        stopOrder: 0,
        runAtStart: true,
        ...options,
      },
      this.onError,
    )
    this.jobs.set(options.name, job)
    if (this.started) job.start()
    return job
  }

  /** Runs the named job soon (a commit queued work for it); nothing when there is no such job or it is stopped. */
  kick(name: string): void {
    this.jobs.get(name)?.kick()
  }

  job(name: string): Job | undefined {
    return this.jobs.get(name)
  }

  start(): void {
    this.started = true
    for (const job of this.jobs.values()) job.start()
  }

  /** Stops every job, in ascending stop order; jobs of one order stop together. */
  async stop(): Promise<void> {
    const orders = [...new Set([...this.jobs.values()].map((job) => job.options.stopOrder))].sort((a, b) => a - b)
    for (const order of orders) {
      await Promise.all([...this.jobs.values()].filter((job) => job.options.stopOrder === order).map((job) => job.stop()))
    }
  }
}
