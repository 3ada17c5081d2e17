// What the machine gives one request now: the bar a test of "other requests keep completing"
// sets moves with it, so a busy machine, slowing everything, does not fail such a test.
import type { FastifyInstance } from 'fastify'

/** A quick request's time now, the median of seven. */
export async function quickRequestMs(app: FastifyInstance, url: string): Promise<number> {
  const times: number[] = []
  for (let index = 0; index < 7; index++) {
    const start = performance.now()
    await app.inject({ url })
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[3]!
}

/** How many quick requests to `url` complete while `slow` is in flight (each after a pause that lets timers run), and for how long it was. */
export async function completedDuring(app: FastifyInstance, url: string, slow: Promise<unknown>): Promise<{ completed: number; inFlightMs: number }> {
  const start = performance.now()
  let finished = false
  const done = slow.then(() => (finished = true))
  let completed = 0
  while (!finished) {
    const answer = await app.inject({ url })
    if (!finished && answer.statusCode === 200) completed++
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  await done
  return { completed, inFlightMs: performance.now() - start }
}

/**
 * What must complete while slow reads run off the event loop: on it they would let at most a
 * request between them through. The bar is what a third of their time holds at the quick
 * request's own pace (at most 5), so a busy machine, slowing both, moves it with them.
 */
export const completedAtLeast = (inFlightMs: number, quickMs: number) => Math.min(5, Math.floor(inFlightMs / (quickMs + 1) / 3))
