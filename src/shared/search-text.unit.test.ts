// How ranked search reads a query and writes what each database is asked (search-text.ts): no
// text of the caller's is ever the database's syntax, and a snippet is safe HTML.
import { describe, expect, it } from 'vitest'

import { findsAnything, ftsMatchOf, MARK_END, MARK_START, MAX_QUERY_TERMS, parseSearchQuery, searchableText, searchConfigurationOf, snippetHtml, tsqueryTextOf } from './search-text.js'

const both = (text: string) => {
  const query = parseSearchQuery(text)
  return { fts: ftsMatchOf(query), ts: tsqueryTextOf(query) }
}

describe('reading a query', () => {
  it('words, phrases, exclusions and or', () => {
    expect(both('quick fox ')).toEqual({ fts: '("quick") AND ("fox")', ts: "('quick') & ('fox')" })
    expect(both('"brown fox" -lazy ')).toEqual({ fts: '("brown" + "fox") NOT "lazy"', ts: "(('brown' <-> 'fox')) & !'lazy'" })
    expect(both('cats or dogs ')).toEqual({ fts: '("cats" OR "dogs")', ts: "('cats' | 'dogs')" })
  })

  it('the last word, still being typed, as a prefix', () => {
    expect(both('data')).toEqual({ fts: '("data"*)', ts: "('data':*)" })
    expect(both('data ').fts).toBe('("data")')
    expect(both('"data"').fts).toBe('("data")')
  })

  it('punctuation and operators of either database as words or nothing', () => {
    expect(both(`it's NEAR(a b) x:* "y" OR` + ' ')).toEqual({
      fts: '("it" + "s") AND ("NEAR" + "a") AND ("b") AND ("x") AND ("y")',
      ts: "(('it' <-> 's')) & (('NEAR' <-> 'a')) & ('b') & ('x') & ('y')",
    })
    expect(tsqueryTextOf(parseSearchQuery("o'brien\\ "))).toBe("(('o' <-> 'brien'))")
    expect(findsAnything(parseSearchQuery('-only -excluded'))).toBe(false)
    expect(findsAnything(parseSearchQuery('&&& ||| !!!'))).toBe(false)
  })

  it('reads at most MAX_QUERY_TERMS terms', () => {
    expect(parseSearchQuery('w '.repeat(40)).clauses).toHaveLength(MAX_QUERY_TERMS)
  })

  it('splits Chinese and Japanese into characters, searched as one phrase', () => {
    expect(both('数据库 ').fts).toBe('("数" + "据" + "库")')
    expect(both('東京タワー ').ts).toBe("(('東' <-> '京' <-> 'タ' <-> 'ワ' <-> 'ー'))")
  })
})

describe('indexed text and snippets', () => {
  it('breaks unspaced scripts and drops the marks a snippet uses', () => {
    expect(searchableText(`数据 ok ${MARK_START}x${MARK_END}\u200b`)).toBe('数\u200b据 ok x')
  })

  it('a snippet as escaped HTML with <mark>, adjacent marks of one run joined', () => {
    expect(snippetHtml(`<b>${MARK_START}a&b${MARK_END}</b> "q"`)).toBe('&lt;b&gt;<mark>a&amp;b</mark>&lt;/b&gt; &quot;q&quot;')
    expect(snippetHtml(`${MARK_START}数${MARK_END}\u200b${MARK_START}据${MARK_END}\u200b库`)).toBe('<mark>数据</mark>库')
  })

  it("a post's configuration from its language, simple where none fits", () => {
    expect(searchConfigurationOf('de-AT')).toBe('german')
    expect(searchConfigurationOf('pt-BR')).toBe('portuguese')
    expect(searchConfigurationOf('zh-Hans')).toBe('simple')
    expect(searchConfigurationOf(null)).toBe('simple')
  })
})
