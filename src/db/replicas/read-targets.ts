// Where a repository's functions run when read replicas are configured (DATABASE_REPLICA_URLS):
// every repository declares each of its functions, and src/db/repository.ts routes by it.
//   replica: a content read that a GET may answer from a replica that has replayed the caller's
//            last write (read-your-writes, src/db/replicas/read-routing.ts);
//   primary: a read that must see the latest state: who may do what (sessions, revocations,
//            bans, keys, one-time secrets, limits, second factors, roles, domain rules), or
//            what a background job or a change is about to act on;
//   write:   it changes rows, so it runs on the primary, and the request reads the primary from
//            then on and records the caller's write position (read-your-writes);
//   bookkeeping: it changes rows no caller reads back (a rate-limit hit, a last-used time): on the
//            primary, without sending the request's reads there.
// The declaration is a complete map, so a new function does not compile until it says where it
// runs; src/db/replicas/read-targets.test.ts checks every repository's map against its functions.
export type ReadTarget = 'replica' | 'primary' | 'write' | 'bookkeeping'

export type ReadTargets<Functions> = { readonly [Name in keyof Functions]: ReadTarget }
