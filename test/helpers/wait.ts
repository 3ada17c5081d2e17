import type { FastifyInstance } from 'fastify'

/**
 * Waits until the app's background job (`mail`, `webhooks`) has worked off what was queued before
 * the call: a run that found nothing. A test asserting that nothing more arrives waits for this
 * first, instead of sleeping.
 */
export async function drained(app: FastifyInstance, job: 'mail' | 'webhooks' | 'store-deletions'): Promise<void> {
  const found = app.services.jobs.job(job)
  if (!found) throw new Error(`no background job ${job}`)
  await found.drain()
}

/** Retries until the request answers 200, until EVENT_DEADLINE_MS has passed; returns the last status. */
export async function until200(request: () => Promise<{ statusCode: number }>): Promise<number> {
  let status = 0
  const deadline = Date.now() + EVENT_DEADLINE_MS
  while (status !== 200 && Date.now() < deadline) {
    status = (await request()).statusCode
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return status
}

/**
 * How long a test waits for an event before it fails: generous, because it is a deadline and not
 * a delay (a wait ends as soon as its event comes), and a busy machine may take many times what an
 * idle one does (scripts/test-under-load.sh).
 */
export const EVENT_DEADLINE_MS = 60_000

/** Polls until `condition` holds; fails after `timeoutMs` (EVENT_DEADLINE_MS unless a wait needs longer). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = EVENT_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Resolves once the clock has moved past the millisecond of the call: what is written next gets a later timestamp. */
export async function clockMoved(): Promise<void> {
  const start = Date.now()
  while (Date.now() <= start) await new Promise((resolve) => setImmediate(resolve))
}
