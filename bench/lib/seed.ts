// Bulk seeding for the benchmark: straight into the database (not through the API), the same
// rows on both dialects. All seeded users share one real argon2id hash of BENCH_PASSWORD.
import { createHash } from 'node:crypto'
import path from 'node:path'

import pg from 'pg'

import SqliteDatabase from '../../src/db/sqlite-driver.js'
import { PasswordHasher } from '../../src/features/users/index.js'

export const BENCH_PASSWORD = 'bench password'
/** Five users whose name holds this word, spread over the table: a search with few matches at any size. */
export const NEEDLE = 'needle'
const NEEDLE_COUNT = 5
const NAME_GROUPS = 10_007
/**
 * Words after each seeded post's text for the search benchmark (bench/lib/search.ts), of the
 * number `n` (the post's): one of 10 (a tenth of the posts have each), one of 1,000 and one of
 * 100,000. As text, and as an SQL expression of the column or series `n`.
 */
const searchWords = (n: number) => ` common${n % 10} medium${n % 1000} rare${n % 100000}`
export const SEARCH_WORDS_SQL = (n: string) => `' common' || (${n} % 10) || ' medium' || (${n} % 1000) || ' rare' || (${n} % 100000)`

const POST_TEXT = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore '.repeat(2)

export interface SeedTarget {
  dialect: 'sqlite' | 'postgres'
  dataDir: string
  databaseUrl?: string
}

const nameOf = (i: number) => `Member ${createHash('md5').update(String(i % NAME_GROUPS)).digest('hex').slice(0, 8)}`

/** Positions (1-based) of the needle users among the first `total` users. */
export function needlePositions(total: number): number[] {
  return Array.from({ length: NEEDLE_COUNT }, (_, k) => Math.floor(((k + 0.5) * total) / NEEDLE_COUNT))
}

let sharedHash: Promise<string> | undefined
const benchHash = () => (sharedHash ??= new PasswordHasher().hash(BENCH_PASSWORD))

/** Adds users number `from`..`to` (inclusive) and as many posts, needles at the 10k positions. */
export async function seed(target: SeedTarget, from: number, to: number, needles: number[]): Promise<void> {
  const hash = await benchHash()
  if (target.dialect === 'sqlite') seedSqlite(target.dataDir, from, to, needles, hash)
  else await seedPostgres(target.databaseUrl as string, from, to, needles, hash)
  await indexSeededPosts(target)
}

function seedSqlite(dataDir: string, from: number, to: number, needles: number[], hash: string): void {
  const db = new SqliteDatabase(path.join(dataDir, 'app.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = OFF')
  const now = new Date().toISOString()
  const insertUser = db.prepare(
    // `or ignore`: the benchmark's own sign-ups may hold ids past the first seeding already.
    `insert or ignore into users (id, name, username, email, hashed_password, profile_image_url, created_at, updated_at)
     values (?, ?, ?, ?, ?, '/media/avatars/default.svg', ?, ?)`,
  )
  // Post ids are left to the database: the benchmark itself writes posts between seedings.
  // Each post's slug is its title's (post-<n>), in its author's scope, as the service would make it.
  const insertPost = db.prepare(`insert into posts (author_id, title, text, slug, slug_scope, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)`)
  const needleSet = new Set(needles)
  db.transaction(() => {
    for (let i = from; i <= to; i++) {
      const name = needleSet.has(i) ? `Needle Person ${i}` : nameOf(i)
      insertUser.run(i, name, `u${i}`, `u${i}@bench.example`, hash, now, now)
    }
    // Authors are spread over every user, so all of them must exist first.
    for (let i = from; i <= to; i++) insertPost.run(1 + (i % to), `Post ${i}`, `${POST_TEXT}${i}${searchWords(i)}`, `post-${i}`, `u:${1 + (i % to)}`, now, now)
  })()
  db.exec('analyze')
  db.close()
}

async function seedPostgres(url: string, from: number, to: number, needles: number[], hash: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(
      `insert into users (id, name, username, email, hashed_password, profile_image_url, created_at, updated_at)
       overriding system value
       select g, case when g = any($4::int[]) then 'Needle Person ' || g else 'Member ' || substr(md5((g % ${NAME_GROUPS})::text), 1, 8) end,
         'u' || g, 'u' || g || '@bench.example', $3, '/media/avatars/default.svg', now(), now()
       from generate_series($1::int, $2::int) as g
       on conflict do nothing`,
      [from, to, hash, needles],
    )
    await client.query(
      `insert into posts (author_id, title, text, slug, slug_scope, created_at, updated_at)
       select 1 + (g % $2::int), 'Post ' || g, $3 || g || ${SEARCH_WORDS_SQL('g')}, 'post-' || g, 'u:' || (1 + (g % $2::int)), now(), now() from generate_series($1::int, $2::int) as g`,
      [from, to, POST_TEXT],
    )
    // The users identity must continue after the explicit ids.
    await client.query(`select setval(pg_get_serial_sequence('users', 'id'), (select max(id) from users))`)
    // As autovacuum would in time: statistics, and the visibility map index-only scans need.
    await client.query('vacuum analyze')
  } finally {
    await client.end()
  }
}

/**
 * Writes the search index entries (post_search) of the posts seeded past the last one indexed, as
 * the service writes them with each post: the seeds write posts around the service. The seeded
 * texts are ASCII, which the service indexes as they are, in the `simple` configuration of a
 * post whose author has no locale. On PostgreSQL a large batch is indexed with the GIN index
 * dropped and then built once, which takes a fraction of inserting into it.
 */
export async function indexSeededPosts(target: SeedTarget): Promise<void> {
  await onTarget(
    target,
    (db) => {
      db.exec(`insert into post_search (rowid, title, body) select id, title, text from posts where id > coalesce((select max(rowid) from post_search), 0)`)
    },
    async (client) => {
      const { rows } = await client.query<{ missing: string }>(`select count(*) as missing from posts where id > coalesce((select max(post_id) from post_search), 0)`)
      const rebuild = Number(rows[0]!.missing) > 100_000
      if (rebuild) await client.query('drop index post_search_document_idx')
      await client.query(
        `insert into post_search (post_id, configuration, title, body, document)
         select id, 'simple', title, text, setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', text), 'B')
         from posts where id > coalesce((select max(post_id) from post_search), 0)`,
      )
      if (rebuild) await client.query('create index post_search_document_idx on post_search using gin (document) with (fastupdate = off)')
      await client.query('vacuum analyze post_search')
    },
  )
}

/** Runs the dialect's statements on the seeded database: on SQLite in WAL mode, on PostgreSQL through one connection. */
export async function onTarget(target: SeedTarget, sqlite: (db: InstanceType<typeof SqliteDatabase>) => void, postgres: (client: pg.Client) => Promise<void>): Promise<void> {
  if (target.dialect === 'sqlite') {
    const db = new SqliteDatabase(path.join(target.dataDir, 'app.db'))
    try {
      db.pragma('journal_mode = WAL')
      sqlite(db)
    } finally {
      db.close()
    }
    return
  }
  const client = new pg.Client({ connectionString: target.databaseUrl as string })
  await client.connect()
  try {
    await postgres(client)
  } finally {
    await client.end()
  }
}

/** Makes user `id` a superuser (the admin console's scenarios need one). */
export async function makeSuperuser(target: SeedTarget, id: number): Promise<void> {
  await onTarget(
    target,
    (db) => db.prepare('update users set is_superuser = 1 where id = ?').run(id),
    async (client) => void (await client.query('update users set is_superuser = true where id = $1', [id])),
  )
}

/** `count` more posts of one author (a data export's bench), public and published. */
export async function seedPostsOf(target: SeedTarget, authorId: number, count: number): Promise<void> {
  await onTarget(
    target,
    (db) =>
      db
        .prepare(
          `with recursive series(g) as (select 1 union all select g + 1 from series where g < ?)
           insert into posts (author_id, title, text, published_at, created_at, updated_at)
           select ?, 'Exported ' || g, ? || g, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
           from series`,
        )
        .run(count, authorId, POST_TEXT),
    async (client) =>
      void (await client.query(
        `insert into posts (author_id, title, text, published_at, created_at, updated_at)
         select $2::int, 'Exported ' || g, $3 || g, now(), now(), now() from generate_series(1, $1::int) as g`,
        [count, authorId, POST_TEXT],
      )),
  )
  await indexSeededPosts(target)
}
