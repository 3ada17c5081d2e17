// The one scheduler of background work: a job backs off while it finds nothing and a kick brings
// it back, never runs twice at once, stops in order (waiting for its run), and the limiter's
// flush runs once more as it stops. On fake timers: no test waits on the clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { Scheduler } from '../../src/shared/scheduler.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A promise settled from outside, to hold a run open. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

describe('the scheduler', () => {
  it('backs an idle job off to its idle interval, and a kick brings it back to its shortest', async () => {
    const jobs = new Scheduler(() => {})
    let found = false
    const runs: number[] = []
    const job = jobs.register({ name: 'relay', intervalMs: 1000, idleIntervalMs: 8000, jitter: 0, run: async () => (runs.push(Date.now()), found) })
    jobs.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(runs).toHaveLength(1)
    expect(job.currentWaitMs).toBe(2000)
    await vi.advanceTimersByTimeAsync(2000 + 4000 + 8000 + 8000)
    expect(runs).toHaveLength(5)
    expect(job.currentWaitMs).toBe(8000)
    found = true
    job.kick()
    await vi.advanceTimersByTimeAsync(0)
    expect(runs).toHaveLength(6)
    expect(job.currentWaitMs).toBe(1000)
    await vi.advanceTimersByTimeAsync(1000)
    expect(runs).toHaveLength(7)
    await jobs.stop()
  })

  it('sleeps until the work it knows of is due, within its intervals', async () => {
    const jobs = new Scheduler(() => {})
    const job = jobs.register({ name: 'relay', intervalMs: 1000, idleIntervalMs: 30_000, jitter: 0, run: async () => 12_345 })
    jobs.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(job.currentWaitMs).toBe(12_345)
    const soonest = jobs.register({ name: 'soon', intervalMs: 1000, idleIntervalMs: 30_000, run: async () => 5 })
    const latest = jobs.register({ name: 'late', intervalMs: 1000, idleIntervalMs: 30_000, run: async () => 3_600_000 })
    await vi.advanceTimersByTimeAsync(0)
    expect([soonest.currentWaitMs, latest.currentWaitMs]).toEqual([1000, 30_000])
    await jobs.stop()
  })

  it('never runs a job twice at once: a kick during a run asks for one more after it', async () => {
    const jobs = new Scheduler(() => {})
    const held = gate()
    let running = 0
    let most = 0
    let runs = 0
    const job = jobs.register({
      name: 'relay',
      intervalMs: 60_000,
      run: async () => {
        runs += 1
        running += 1
        most = Math.max(most, running)
        if (runs === 1) await held.opened
        running -= 1
      },
    })
    jobs.start()
    job.kick()
    job.kick()
    held.open()
    await vi.advanceTimersByTimeAsync(0)
    expect(runs).toBe(2)
    expect(most).toBe(1)
    await jobs.stop()
  })

  it('runs soon() within the shortest interval, not at once, and only once for many calls', async () => {
    const jobs = new Scheduler(() => {})
    let runs = 0
    const job = jobs.register({ name: 'flush', intervalMs: 100, idleIntervalMs: 10_000, jitter: 0, runAtStart: false, run: async () => ((runs += 1), false) })
    jobs.start()
    await vi.advanceTimersByTimeAsync(100)
    expect(runs).toBe(1)
    await vi.advanceTimersByTimeAsync(200)
    expect(job.currentWaitMs).toBe(400)
    for (let call = 0; call < 50; call++) job.soon()
    expect(runs).toBe(2)
    await vi.advanceTimersByTimeAsync(100)
    expect(runs).toBe(3)
    await jobs.stop()
  })

  it('keeps a soon() asked during a run that found nothing: the next run comes within the shortest interval', async () => {
    const jobs = new Scheduler(() => {})
    const held = gate()
    let runs = 0
    const job = jobs.register({
      name: 'flush',
      intervalMs: 100,
      idleIntervalMs: 10_000,
      jitter: 0,
      run: async () => {
        runs += 1
        if (runs === 1) await held.opened
        return false
      },
    })
    jobs.start()
    job.soon()
    held.open()
    await vi.advanceTimersByTimeAsync(0)
    expect(job.currentWaitMs).toBe(100)
    await vi.advanceTimersByTimeAsync(100)
    expect(runs).toBe(2)
    await jobs.stop()
  })

  it('stops jobs in their order, each after its run under way', async () => {
    const stopped: string[] = []
    const jobs = new Scheduler(() => {})
    const held = gate()
    const flushing = gate()
    jobs.register({ name: 'flush', intervalMs: 100, stopOrder: 2, run: async () => (await flushing.opened, stopped.push('flush'), false) })
    jobs.register({
      name: 'relay',
      intervalMs: 1000,
      stopOrder: 1,
      run: async (signal) => {
        await held.opened
        stopped.push(signal.aborted ? 'relay saw the stop' : 'relay')
      },
    })
    jobs.start()
    const stopping = jobs.stop()
    held.open()
    flushing.open()
    await stopping
    expect(stopped).toEqual(['relay saw the stop', 'flush'])
    jobs.kick('relay')
    await vi.advanceTimersByTimeAsync(5000)
    expect(stopped).toHaveLength(2)
  })

  it('reports a failing run and runs the job again at its next turn', async () => {
    const failures: string[] = []
    const jobs = new Scheduler((_error, name) => failures.push(name))
    let runs = 0
    jobs.register({
      name: 'cleanup',
      intervalMs: 1000,
      jitter: 0,
      run: async () => {
        runs += 1
        if (runs === 1) throw new Error('database away')
      },
    })
    jobs.start()
    await vi.advanceTimersByTimeAsync(1000)
    expect(failures).toEqual(['cleanup'])
    expect(runs).toBe(2)
    expect(() => jobs.register({ name: 'cleanup', intervalMs: 1, run: async () => {} })).toThrow(/twice/)
    await jobs.stop()
  })
})
