// Mail templates read from their folders and compiled as Unicode MessageFormat 2 messages (the
// `messageformat` package), then rendered in the recipient's language (templates.ts says how they
// are laid out). Loaded with the first mail, not at start.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { MessageFormat } from 'messageformat'
import { DraftFunctions } from 'messageformat/functions'

import { escapeHtml } from '../../shared/escape-html.js'
import { canonicalLocale, languageOf } from '../../shared/locale.js'
import type { MailTemplateName } from './mail.js'
import type { MailPhrase, MailValues, RenderedMail, RenderProblem } from './templates.js'
import { DEFAULT_TEMPLATES_DIR, TEMPLATE_NAMES } from './templates.js'

const PHRASES_FILE = 'phrases.json'

interface Template {
  subject: string
  text: string
  html: string
}

interface Language {
  templates: Map<MailTemplateName, Template>
  phrases: Map<string, string>
}

/** Line breaks of every kind a mail program may honour. */
// eslint-disable-next-line no-control-regex -- vertical tab and form feed break lines too
const LINE_BREAKS = /[\r\n\u000B\u000C\u0085\u2028\u2029]+/g

/** A value stays on the line the template put it on: a name can never add lines to a mail or a header. */
const oneLine = (value: string) => value.replace(LINE_BREAKS, ' ')

const FORMAT_OPTIONS = { functions: DraftFunctions, bidiIsolation: 'none' as const }

/** A compiled message (its type carries the functions it may call: the draft ones, dates among them). */
type Message = MessageFormat<'number' | 'datetime', 'number' | 'datetime'>

export class MailTemplates {
  private readonly compiled = new Map<string, Message>()

  constructor(
    private readonly languages: ReadonlyMap<string, Language>,
    readonly defaultLocale: string,
  ) {
    const fallback = languages.get(defaultLocale)
    if (!fallback) throw new Error(`mail templates: no folder for the default language ${defaultLocale}`)
    for (const name of TEMPLATE_NAMES) if (!fallback.templates.has(name)) throw new Error(`mail templates: ${defaultLocale}/${name}.txt is missing`)
    for (const [locale, language] of languages)
      for (const [name, template] of language.templates)
        if (template.subject === undefined || template.html === undefined) throw new Error(`mail templates: ${locale}/${name} needs both its .txt and its .html`)
    // Every message is compiled now, so a broken one stops the start, not a request.
    for (const [locale, language] of languages) {
      for (const [name, template] of language.templates) for (const part of ['subject', 'text', 'html'] as const) this.compile(locale, template[part], `${locale}/${name} (${part})`)
      for (const [key, source] of language.phrases) this.compile(locale, source, `${locale}/${PHRASES_FILE} ${key}`)
    }
  }

  /** The languages with templates of their own, the default first. */
  get locales(): string[] {
    return [this.defaultLocale, ...[...this.languages.keys()].filter((locale) => locale !== this.defaultLocale).sort()]
  }

  /** The language a mail in `template` to someone whose locale is `wanted` is written in: that locale, its language, or the default. */
  resolve(template: MailTemplateName, wanted: string | null | undefined): string {
    const exact = wanted ? canonicalLocale(wanted) : undefined
    const candidates = exact === undefined ? [] : [exact, languageOf(exact)]
    return candidates.find((locale) => this.languages.get(locale)?.templates.has(template)) ?? this.defaultLocale
  }

  render(template: MailTemplateName, wanted: string | null | undefined, to: string, values: MailValues, problem: RenderProblem = () => {}): RenderedMail {
    const locale = this.resolve(template, wanted)
    const source = this.languages.get(locale)!.templates.get(template)!
    const report = (message: string) => problem({ template, locale, message })
    const plain = this.fill(locale, values, oneLine, report)
    const marked = this.fill(locale, values, escapeHtml, report)
    return {
      to,
      locale,
      subject: this.format(locale, source.subject, plain, report),
      text: this.format(locale, source.text, plain, report),
      html: this.format(locale, source.html, marked, report),
    }
  }

  /** The values as the messages take them: text made safe for where it goes (one line, or escaped HTML), phrases written out. */
  private fill(locale: string, values: MailValues, safe: (text: string) => string, report: (message: string) => void): Record<string, string | number | Date> {
    const written = (value: MailPhrase) => this.phrase(locale, value, safe, report)
    return Object.fromEntries(
      Object.entries(values).map(([key, value]) => {
        if (typeof value === 'string') return [key, safe(value)]
        if (typeof value === 'number' || value instanceof Date) return [key, value]
        if (isPhraseList(value)) return [key, new Intl.ListFormat(locale, { type: 'conjunction' }).format(value.map(written))]
        return [key, written(value)]
      }),
    )
  }

  private phrase(locale: string, { phrase: key, values = {} }: MailPhrase, safe: (text: string) => string, report: (message: string) => void): string {
    const source = this.languages.get(locale)?.phrases.get(key) ?? this.languages.get(this.defaultLocale)!.phrases.get(key)
    if (source === undefined) {
      report(`no phrase ${key}`)
      return key
    }
    const filled = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? safe(value) : value]))
    return this.format(locale, source, filled, report)
  }

  private format(locale: string, source: string, values: Record<string, unknown>, report: (message: string) => void): string {
    return this.compile(locale, source, source).format(values, (error: unknown) => report(error instanceof Error ? error.message : String(error)))
  }

  private compile(locale: string, source: string, name: string): Message {
    const key = `${locale}\u0000${source}`
    const known = this.compiled.get(key)
    if (known) return known
    let message: Message
    try {
      message = new MessageFormat(locale, source, FORMAT_OPTIONS)
    } catch (error) {
      throw new Error(`mail template ${name} is not a valid message: ${(error as Error).message}`)
    }
    this.compiled.set(key, message)
    return message
  }
}

const isPhraseList = (value: MailPhrase | readonly MailPhrase[]): value is readonly MailPhrase[] => Array.isArray(value)

/** Reads every language's templates once, at start: the bundled ones, each replaced by the operator's copy in `overrideDir` where it has one. */
export function loadTemplates(overrideDir: string | undefined, defaultLocale = 'en'): MailTemplates {
  const languages = new Map<string, Language>()
  const languageNamed = (locale: string) => {
    let language = languages.get(locale)
    if (!language) languages.set(locale, (language = { templates: new Map(), phrases: new Map() }))
    return language
  }
  const roots = [DEFAULT_TEMPLATES_DIR, ...(overrideDir === undefined ? [] : [overrideDir])]
  for (const root of roots) {
    for (const folder of localeFolders(root)) {
      const language = languageNamed(folder.locale)
      for (const name of TEMPLATE_NAMES) {
        const template = readTemplate(folder.path, name, false)
        if (template) language.templates.set(name, { ...language.templates.get(name), ...template } as Template)
      }
      const phrases = readPhrases(folder.path)
      for (const [key, source] of Object.entries(phrases)) language.phrases.set(key, source)
    }
  }
  // The layout before languages: templates at the top of MAIL_TEMPLATES_DIR, with {{placeholders}}.
  if (overrideDir !== undefined) {
    for (const name of TEMPLATE_NAMES) {
      const template = readTemplate(overrideDir, name, true)
      if (template) languageNamed(defaultLocale).templates.set(name, { ...languageNamed(defaultLocale).templates.get(name)!, ...template })
    }
  }
  return new MailTemplates(languages, defaultLocale)
}

/** The folders of `root` named by a language tag, with the tag in its canonical form. */
function localeFolders(root: string): { locale: string; path: string }[] {
  if (!existsSync(root)) return []
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const locale = canonicalLocale(entry.name)
      return locale === undefined ? [] : [{ locale, path: path.join(root, entry.name) }]
    })
}

/** A template's parts from `folder`, those it has (a folder may replace only the text, or only the HTML); undefined when it has neither. */
function readTemplate(folder: string, name: MailTemplateName, legacy: boolean): Partial<Template> | undefined {
  const text = readIfThere(path.join(folder, `${name}.txt`))
  const html = readIfThere(path.join(folder, `${name}.html`))
  if (text === undefined && html === undefined) return undefined
  const converted = (source: string) => (legacy ? fromPlaceholders(source) : source)
  const parts: Partial<Template> = {}
  if (text !== undefined) {
    const [first = '', ...body] = text.split('\n')
    const subject = /^Subject:\s*(.+)$/.exec(first.trim())?.[1]
    if (!subject) throw new Error(`mail template ${path.join(folder, name)}.txt must start with a "Subject: …" line`)
    parts.subject = converted(subject)
    parts.text = converted(`${body.join('\n').trim()}\n`)
  }
  if (html !== undefined) parts.html = converted(html)
  return parts
}

/**
 * A template of the layout before languages as a MessageFormat 2 message: {{name}} becomes
 * {$name}, and the characters MessageFormat reads (braces, backslashes) elsewhere, as in a style
 * sheet, are escaped to stay text.
 */
function fromPlaceholders(source: string): string {
  return source
    .split(/(\{\{\w+\}\})/)
    .map((part) => {
      const name = /^\{\{(\w+)\}\}$/.exec(part)?.[1]
      return name === undefined ? part.replace(/[\\{}]/g, (special) => `\\${special}`) : `{$${name}}`
    })
    .join('')
}

function readPhrases(folder: string): Record<string, string> {
  const source = readIfThere(path.join(folder, PHRASES_FILE))
  if (source === undefined) return {}
  const phrases = JSON.parse(source) as unknown
  if (typeof phrases !== 'object' || phrases === null || Object.values(phrases).some((value) => typeof value !== 'string')) {
    throw new Error(`${path.join(folder, PHRASES_FILE)} must be an object of messages`)
  }
  return phrases as Record<string, string>
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
