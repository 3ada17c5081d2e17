// The replica tests' PostgreSQL primary and its hot standby (scripts/test-services.sh makes the
// standby with pg_basebackup -R): the standby's URL for a test database made on that primary
// (createTestDatabase({ replicated: true })), and replay paused and resumed on it, so a test
// freezes a replica's state exactly instead of waiting for lag. Replay is cluster-wide: the tests
// that pause it resume it whatever happens (scripts/test-services.sh resumes it too).
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { inject } from 'vitest'

import { waitFor } from './wait.js'

/** The standby's URL for the database `databaseUrl` names on the primary. */
export function replicaUrlOf(databaseUrl: string): string {
  const url = new URL(inject('replicaUrl'))
  url.pathname = new URL(databaseUrl).pathname
  return url.toString()
}

async function on<T>(connectionString: string, query: string): Promise<T> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query(query)).rows[0] as T
  } finally {
    await client.end()
  }
}

/**
 * Pauses replay and resolves once it has stopped: a pause is only requested until replay meets its
 * next record, so the primary writes one (a message in the WAL) until the standby says it is paused.
 */
export async function pauseReplay(): Promise<number> {
  await on(inject('replicaUrl'), 'select pg_wal_replay_pause()')
  await waitFor(async () => {
    await on(inject('replicaPrimaryUrl'), `select pg_logical_emit_message(false, 'ups-test', 'pause')`)
    const { state } = await on<{ state: string }>(inject('replicaUrl'), 'select pg_get_wal_replay_pause_state() as state')
    return state === 'paused'
  })
  return replayed()
}

/** WAL bytes the standby has replayed. */
export async function replayed(): Promise<number> {
  const row = await on<{ replayed: string }>(inject('replicaUrl'), `select (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text as replayed`)
  return Number(row.replayed)
}

/**
 * Pauses replay and resolves once the app's replica monitor has seen where it stopped: until
 * then the app judges the replica by an older position, and sends more callers to the primary.
 */
export async function freezeReplicaOf(app: FastifyInstance): Promise<void> {
  const at = await pauseReplay()
  await waitFor(() => (app.replicas?.stats()[0]?.replayed ?? 0) >= at)
}
export const resumeReplay = () => on(inject('replicaUrl'), 'select pg_wal_replay_resume()')

/** Resolves once the standby has replayed everything the primary had written when it was called. */
export async function caughtUp(): Promise<void> {
  const { lsn } = await on<{ lsn: string }>(inject('replicaPrimaryUrl'), `select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as lsn`)
  await waitFor(async () => (await replayed()) >= Number(lsn))
}
