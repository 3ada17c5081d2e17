// Ranked search's text on both databases (docs/api.md "Search"): what a post's title and text are
// indexed as, how the web's query syntax (words, "phrases", -word, or, a last word still being
// typed) is read, what each database is asked, and how a database's highlighted snippet becomes
// safe HTML. The databases' tokenizers split words at spaces and punctuation; Chinese and Japanese
// write none, so each of their characters is indexed as a word of its own and a run of them is
// searched as a phrase (a bigram would rank better; neither database's tokenizers ship one).
import { RuleViolation } from './errors.js'
import { escapeHtml } from './escape-html.js'

/** Between two characters of a script written without spaces: both databases' tokenizers split there, and a snippet drops it. */
const WORD_BREAK = '\u200B'
/** What marks a matched word in a database's snippet, before it is escaped: private-use characters no text keeps (searchableText drops them). */
export const MARK_START = '\uE000'
export const MARK_END = '\uE001'

/** Characters written without spaces between words (Han, Hiragana, Katakana). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u
const UNSPACED_RUN = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu
const UNSAFE = /[\u200B\uE000\uE001]/g

/** A title or text as it is indexed: NFC, with a word break between characters of unspaced scripts, and without the marks a snippet uses. */
export function searchableText(text: string): string {
  return text.normalize('NFC').replace(UNSAFE, '').replace(UNSPACED_RUN, `$1${WORD_BREAK}`)
}

/** One word or phrase of a query: its words, whether it is excluded (`-word`), and whether its last word is a prefix (search-as-you-type). */
export interface QueryTerm {
  words: string[]
  excluded: boolean
  prefix: boolean
}

/** A query: every clause must match; a clause matches when any of its terms does (`a or b`). */
export interface SearchQuery {
  clauses: QueryTerm[][]
}

/** The words of a piece of text as both databases tokenize it: letters, marks and digits; an unspaced script's characters one by one. */
function wordsOf(text: string): string[] {
  const words: string[] = []
  for (const match of text.normalize('NFC').matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    let run = ''
    for (const char of match[0]) {
      if (UNSPACED.test(char)) {
        if (run) words.push(run)
        words.push(char)
        run = ''
      } else run += char
    }
    if (run) words.push(run)
  }
  return words
}

/** The most terms a query is read for; the rest is ignored (a query is a few words, not a document). */
export const MAX_QUERY_TERMS = 16

/**
 * Reads the web's query syntax: words must all match; "a phrase" matches its words in order;
 * -word excludes; `or` between two terms matches either. The last word, when the query does not
 * end in a space or a quote, also matches as a prefix (search-as-you-type). Anything else is
 * punctuation: it separates words and is never syntax a database sees.
 */
export function parseSearchQuery(text: string): SearchQuery {
  const tokens = [...text.matchAll(/(-?)"([^"]*)"?|(\S+)/g)]
  const clauses: QueryTerm[][] = []
  let joinNext = false
  for (const [index, token] of tokens.entries()) {
    if (clauses.flat().length >= MAX_QUERY_TERMS) break
    const [whole, minus, phrase, bare] = token
    if (bare !== undefined && bare.toLowerCase() === 'or') {
      joinNext = clauses.length > 0
      continue
    }
    const excluded = minus === '-' || (bare?.startsWith('-') ?? false)
    const words = wordsOf(phrase ?? bare ?? '')
    if (words.length === 0) continue
    const last = index === tokens.length - 1 && bare !== undefined && !/\s$/.test(text) && !excluded && text.endsWith(whole)
    const term = { words, excluded, prefix: last }
    const previous = clauses.at(-1)
    if (joinNext && previous !== undefined && !excluded && !previous.some((other) => other.excluded)) previous.push(term)
    else clauses.push([term])
    joinNext = false
  }
  return { clauses }
}

/** Whether the query asks for anything: at least one clause that is not an exclusion. */
export function findsAnything(query: SearchQuery): boolean {
  return query.clauses.some((clause) => !clause[0]!.excluded)
}

/** The query `q` read, or 422 `search_query_empty` when it asks for nothing (only punctuation, or only excluded words). */
export function searchQueryOf(text: string): SearchQuery {
  const query = parseSearchQuery(text)
  if (!findsAnything(query)) throw new RuleViolation('q', 'Search for at least one word that is not excluded with -', 'search_query_empty', { location: 'query', code: 'search_query_empty' })
  return query
}

const quoted = (word: string) => `"${word.replaceAll('"', '""')}"`

/** A term as an FTS5 phrase: its words in order, the last a prefix where it is one. */
const ftsPhrase = (term: QueryTerm) => (term.words.length === 1 && term.prefix ? `${quoted(term.words[0]!)}*` : `${term.words.map(quoted).join(' + ')}${term.prefix ? '*' : ''}`)

/** The query as an SQLite FTS5 MATCH expression: every word quoted, so no text is syntax. */
export function ftsMatchOf(query: SearchQuery): string {
  const wanted = query.clauses.filter((clause) => !clause[0]!.excluded).map((clause) => `(${clause.map(ftsPhrase).join(' OR ')})`)
  const excluded = query.clauses.filter((clause) => clause[0]!.excluded).map((clause) => ftsPhrase(clause[0]!))
  return [wanted.join(' AND '), ...excluded].join(' NOT ')
}

/** A word as a tsquery operand: quoted, so to_tsquery runs it through the configuration's dictionaries (stemming, stop words) and reads no syntax in it. */
const tsOperand = (word: string, prefix: boolean) => `'${word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${prefix ? ':*' : ''}`

const tsTerm = (term: QueryTerm) => {
  const words = term.words.map((word, i) => tsOperand(word, term.prefix && i === term.words.length - 1))
  return words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`
}

/** The query as PostgreSQL's to_tsquery text: `&`, `|`, `!` and `<->` between quoted words. */
export function tsqueryTextOf(query: SearchQuery): string {
  return query.clauses.map((clause) => (clause[0]!.excluded ? `!${tsTerm(clause[0]!)}` : `(${clause.map(tsTerm).join(' | ')})`)).join(' & ')
}

/** A database's snippet as safe HTML: everything escaped, the matched words in `<mark>`, the word breaks gone. */
export function snippetHtml(snippet: string): string {
  // Matched characters of an unspaced script next to each other are one match.
  const joined = snippet.replace(new RegExp(`${MARK_END}${WORD_BREAK}?${MARK_START}`, 'g'), '')
  const escaped = escapeHtml(joined.replaceAll(WORD_BREAK, ''))
  return escaped.replaceAll(MARK_START, '<mark>').replaceAll(MARK_END, '</mark>')
}

/** The PostgreSQL text search configurations a post's language selects; any other language is indexed with `simple` (words as written, lower-cased). */
export const SEARCH_CONFIGURATIONS: Readonly<Record<string, string>> = {
  ar: 'arabic',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  fi: 'finnish',
  fr: 'french',
  hu: 'hungarian',
  id: 'indonesian',
  it: 'italian',
  nl: 'dutch',
  no: 'norwegian',
  nb: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sv: 'swedish',
  tr: 'turkish',
}

/** Every configuration a post may be indexed with: a search asks each in turn. */
export const ALL_SEARCH_CONFIGURATIONS = ['simple', ...new Set(Object.values(SEARCH_CONFIGURATIONS))]

/** The configuration a post in `language` (a BCP 47 tag, or none) is indexed with. */
export function searchConfigurationOf(language: string | null): string {
  if (language === null) return 'simple'
  return SEARCH_CONFIGURATIONS[language.split('-')[0]!.toLowerCase()] ?? 'simple'
}
