// PostgreSQL's half of ranked search, shared by every index that keeps a tsvector per row in the
// row's own text search configuration (posts, comments): the query stemmed once per
// configuration, and each row matched and ranked with its own configuration's reading of it.
// SQLite's FTS5 reads the query with its one tokenizer (search-text.ts ftsMatchOf) and needs none
// of this.
import type { RawBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import { ALL_SEARCH_CONFIGURATIONS, MARK_END, MARK_START, type SearchQuery, tsqueryTextOf } from '../shared/search-text.js'
import { isPostgres } from './dialect.js'
import type { Executor } from './schema.js'

/**
 * The query as PostgreSQL reads it for rows of each configuration: configurations that stem it
 * alike share one tsquery; one that reads nothing in it (only its stop words) matches nothing.
 */
export interface StemmedQuery {
  groups: { configurations: string[]; tsquery: string }[]
}

/** The query stemmed by every configuration a row may be indexed with; no groups on SQLite, whose one tokenizer reads the query as it matches. */
export async function stemQuery(db: Executor, query: SearchQuery): Promise<StemmedQuery> {
  if (!isPostgres(db)) return { groups: [] }
  const text = tsqueryTextOf(query)
  const { rows } = await sql<{ configuration: string; tsquery: string }>`
    select configuration, to_tsquery(configuration::regconfig, ${text})::text as tsquery
    from unnest(cast(${ALL_SEARCH_CONFIGURATIONS} as text[])) as configuration`.execute(db)
  const byQuery = new Map<string, string[]>()
  for (const row of rows) if (row.tsquery !== '') byQuery.set(row.tsquery, [...(byQuery.get(row.tsquery) ?? []), row.configuration])
  return { groups: [...byQuery].map(([tsquery, configurations]) => ({ tsquery, configurations })) }
}

/** The tsquery of the row's configuration (the column `configuration`), as a value of the row. */
export function rowsTsquery(stemmed: StemmedQuery, configuration: RawBuilder<unknown>): RawBuilder<unknown> {
  if (stemmed.groups.length === 0) return sql`cast(null as tsquery)`
  const cases = stemmed.groups.map((group) => sql`when ${configuration} = any(cast(${group.configurations} as regconfig[])) then cast(${group.tsquery} as tsquery)`)
  return sql`(case ${sql.join(cases, sql` `)} end)`
}

/** One GIN scan of `document` for any configuration's query, then each row held to its own. */
export function tsMatch(document: RawBuilder<unknown>, configuration: RawBuilder<unknown>, stemmed: StemmedQuery): RawBuilder<SqlBool> {
  if (stemmed.groups.length === 0) return sql<SqlBool>`1 = 0`
  const union = stemmed.groups.map((group) => `(${group.tsquery})`).join(' | ')
  return sql<SqlBool>`${document} @@ cast(${union} as tsquery) and ${document} @@ ${rowsTsquery(stemmed, configuration)}`
}

/** A row's relevance, higher first: ts_rank_cd over the document's length. */
export function tsRank(document: RawBuilder<unknown>, configuration: RawBuilder<unknown>, stemmed: StemmedQuery): RawBuilder<number> {
  return sql<number>`cast(ts_rank_cd(${document}, ${rowsTsquery(stemmed, configuration)}, 1) as float8)`
}

/** ts_headline's options for a text's best passages, as SQLite's snippet() gives one (MARK_START, MARK_END around each match). */
export const PASSAGES_HEADLINE = `MaxWords=35, MinWords=15, MaxFragments=2, FragmentDelimiter=" … ", StartSel=${MARK_START}, StopSel=${MARK_END}`

/** The cast a hit cursor's rank is compared under: what each database's rank is. */
export const rankType = (db: Executor) => sql.raw(isPostgres(db) ? 'float8' : 'real')
