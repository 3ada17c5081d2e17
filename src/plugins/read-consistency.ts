// Read-your-writes with read replicas (DATABASE_REPLICA_URLS): every request carries what it may
// read from a replica (src/db/replicas/request-reads.ts); a change that succeeded (any method but
// GET and HEAD, or a GET that wrote, as a sign-in through a link does) records the primary's WAL
// position for its caller before its answer leaves, so the caller's next read, through any node,
// skips replicas that have not replayed it. Registered only with replicas.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'

import type { ReplicaSet } from '../db/replicas/replica-set.js'
import { RequestReads, runWithReads } from '../db/replicas/request-reads.js'

declare module 'fastify' {
  interface FastifyRequest {
    reads: RequestReads | null
  }
  interface FastifyInstance {
    /** The read replicas, when DATABASE_REPLICA_URLS lists any (their state, for tests and metrics). */
    replicas?: ReplicaSet
  }
}

export interface ReadConsistencyOptions {
  replicas: ReplicaSet
}

const REPLICA_METHODS = new Set(['GET', 'HEAD'])

export default fp<ReadConsistencyOptions>(
  async (app, { replicas }) => {
    app.decorate('replicas', replicas)
    app.decorateRequest('reads', null)
    // Before the caller is known (the authentication hook comes next): everything after it, the
    // handler included, runs inside this request's context.
    app.addHook('onRequest', function withReads(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
      const reads = new RequestReads(REPLICA_METHODS.has(request.method), () => request.caller?.user.id)
      request.reads = reads
      runWithReads(reads, done)
    })
    app.addHook('onSend', async (request, reply, payload) => {
      const reads = request.reads
      if (reads === null || !reads.changed() || reply.statusCode >= 400) return payload
      const userId = reads.userId()
      if (userId === undefined) return payload
      try {
        await replicas.recordWrite(userId)
      } catch (error) {
        // The change is committed; without its position the caller's next reads may be served by
        // a replica that has not replayed it yet, so this is worth a warning, not a failed answer.
        request.log.warn({ err: error }, 'could not record the write position for read-your-writes')
      }
      return payload
    })
  },
  { name: 'read-consistency', dependencies: ['app-context'] },
)
