// Mail in every language: each language ships every template (text and HTML) and every phrase the
// default has, or this fails; each renders, in plain text and HTML, with every placeholder filled
// and no English left where a translation should be; the fallback goes exact locale → language →
// default; values stay on their line in text and are escaped in HTML; an operator's folder
// replaces templates by language, adds one, and keeps the layout before languages working.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { loadTemplates } from './message-templates.js'
import { TEMPLATE_SAMPLES } from './template-samples.js'
import { DEFAULT_TEMPLATES_DIR, duration, phrase, TEMPLATE_NAMES } from './templates.js'

const LANGUAGES = ['en', 'de', 'fr', 'es']
const templates = loadTemplates(undefined)

function rendered(name: (typeof TEMPLATE_NAMES)[number], locale: string) {
  const problems: string[] = []
  const mail = templates.render(name, locale, 'ada@example.com', TEMPLATE_SAMPLES[name], (problem) => problems.push(problem.message))
  return { mail, problems }
}

describe('mail templates in every language', () => {
  it('ships every template, in text and HTML, and every phrase in each language the service has', () => {
    const folders = readdirSync(DEFAULT_TEMPLATES_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
    expect(folders.sort()).toEqual([...LANGUAGES].sort())
    const filesOf = (locale: string) => readdirSync(path.join(DEFAULT_TEMPLATES_DIR, locale)).sort()
    const expected = [...TEMPLATE_NAMES.flatMap((name) => [`${name}.html`, `${name}.txt`]), 'phrases.json'].sort()
    const phraseKeys = (locale: string) => Object.keys(JSON.parse(readFileSync(path.join(DEFAULT_TEMPLATES_DIR, locale, 'phrases.json'), 'utf8'))).sort()
    for (const locale of LANGUAGES) {
      expect(filesOf(locale), locale).toEqual(expected)
      expect(phraseKeys(locale), locale).toEqual(phraseKeys('en'))
    }
    expect(templates.locales).toEqual(['en', 'de', 'es', 'fr'])
  })

  it('renders every mail in every language, subject, text and HTML, with every placeholder filled', () => {
    for (const name of TEMPLATE_NAMES) {
      const english = rendered(name, 'en').mail
      for (const locale of LANGUAGES) {
        const { mail, problems } = rendered(name, locale)
        expect(problems, `${locale}/${name}`).toEqual([])
        expect(mail.locale).toBe(locale)
        for (const part of [mail.subject, mail.text, mail.html]) {
          expect(part, `${locale}/${name}`).not.toMatch(/\{\$|\{\{|\}\}|undefined|\[object/)
          // Each phrase was found in the language (a missing one shows its key).
          expect(part, `${locale}/${name}`).not.toMatch(/\b(?:duration|method|ended|remaining|reason|role|mode)\.[a-z_]+/)
        }
        if (locale !== 'en') {
          expect(mail.subject, `${locale}/${name}`).not.toBe(english.subject)
          expect(mail.text, `${locale}/${name}`).not.toBe(english.text)
          expect(mail.html, `${locale}/${name}`).not.toBe(english.html)
        }
        expect(mail.html).toMatch(/<p>/)
        expect(mail.text).not.toMatch(/<p>/)
      }
    }
  })

  it('writes plurals, durations, lists and dates in the language', () => {
    const day = (locale: string, days: number) => templates.render('account-deletion-scheduled', locale, 'x@example.com', { ...TEMPLATE_SAMPLES['account-deletion-scheduled'], days: duration(days * 1440) }).text
    expect(day('en', 14)).toContain('On December 11, 2026 (14 days from now)')
    expect(day('de', 14)).toContain('Am 11. Dezember 2026 (Frist: 14 Tage)')
    expect(day('fr', 1)).toContain('(dans 24 heures)')
    expect(day('fr', 2)).toContain('(dans 2 jours)')
    expect(day('es', 14)).toContain('El 11 de diciembre de 2026 (dentro de 14 días)')
    expect(rendered('reset-password', 'en').mail.text).toContain('expires in 1 hour')
    expect(rendered('verify-email', 'de').mail.text).toContain('24 Stunden lang gültig')
    expect(rendered('ways-in-ended', 'en').mail.text).toContain('2 signed-in sessions, 1 API key, the passkey "Old laptop", sign-in with github, the password, and the second factor')
    expect(rendered('ways-in-ended', 'fr').mail.text).toContain('2 sessions connectées, 1 clé d’API')
    const one = templates.render('ways-in-ended', 'de', 'x@example.com', { ...TEMPLATE_SAMPLES['ways-in-ended'], ended: [phrase('ended.sessions', { count: 1 })] })
    expect(one.text).toContain('\n1 angemeldete Sitzung.\n')
    expect(rendered('ways-in-ended', 'es').mail.text).toMatch(/tu contraseña, la llave de acceso «Phone», .* y restablecer la contraseña/)
    expect(rendered('new-device-sign-in', 'de').mail.text).toContain('Wann: 27. November 2026 um 10:15 UTC')
    expect(rendered('new-device-sign-in', 'fr').mail.text).toContain('Navigateur : Firefox sur Linux (ordinateur)')
  })

  it('falls back from the exact locale to its language, then to the default', () => {
    expect(templates.resolve('verify-email', 'de-AT')).toBe('de')
    expect(templates.resolve('verify-email', 'fr-CA')).toBe('fr')
    expect(templates.resolve('verify-email', 'es-419')).toBe('es')
    expect(templates.resolve('verify-email', 'pt-BR')).toBe('en')
    expect(templates.resolve('verify-email', null)).toBe('en')
    expect(templates.resolve('verify-email', 'not a tag!')).toBe('en')
    expect(rendered('verify-email', 'de-CH').mail.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse')
    expect(rendered('verify-email', 'ja').mail.subject).toBe('Confirm your email address')
  })

  it('keeps a value on its line in text, and escapes it in HTML, in every language', () => {
    for (const locale of LANGUAGES) {
      const mail = templates.render('verify-email', locale, 'x@example.com', { ...TEMPLATE_SAMPLES['verify-email'], name: 'Eve\r\nBcc: all@example.com <b>' })
      expect(mail.text).toContain('Eve Bcc: all@example.com <b>')
      expect(mail.html).toContain('Bcc: all@example.com &lt;b&gt;')
      expect(mail.html).not.toContain('<b>')
    }
  })
})

describe('MAIL_TEMPLATES_DIR', () => {
  it('replaces a language\'s template by its own, adds a language, and reads the layout before languages as text with {{placeholders}}', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'ups-mail-override-'))
    try {
      writeFileSync(path.join(folder, 'reset-password.txt'), 'Subject: Reset for {{name}}\nHi {{name}}, a \\ and {braces} stay: {{link}}\n')
      writeFileSync(path.join(folder, 'reset-password.html'), '<style>p{color:red}</style><p>{{name}}</p>')
      mkdirSync(path.join(folder, 'de'))
      writeFileSync(path.join(folder, 'de', 'verify-email.txt'), 'Subject: Bitte bestätigen, {$name}\nHallo {$name}: {$link}\n')
      mkdirSync(path.join(folder, 'it'))
      writeFileSync(path.join(folder, 'it', 'reset-password.txt'), 'Subject: Reimposta la password\nCiao {$name}: {$link} ({$valid_for})\n')
      writeFileSync(path.join(folder, 'it', 'reset-password.html'), '<p>Ciao {$name}</p>')
      const custom = loadTemplates(folder)
      const values = { ...TEMPLATE_SAMPLES['reset-password'], name: 'Eve <x>' }
      const legacy = custom.render('reset-password', 'en', 'x@example.com', values)
      expect(legacy.subject).toBe('Reset for Eve <x>')
      expect(legacy.text).toBe(`Hi Eve <x>, a \\ and {braces} stay: ${String(TEMPLATE_SAMPLES['reset-password'].link)}\n`)
      expect(legacy.html).toBe('<style>p{color:red}</style><p>Eve &lt;x&gt;</p>')
      // The German text is the operator's; its HTML is still the shipped one.
      const german = custom.render('verify-email', 'de', 'x@example.com', TEMPLATE_SAMPLES['verify-email'])
      expect(german.subject).toBe('Bitte bestätigen, Ada Lovelace')
      expect(german.html).toContain('Meine E-Mail-Adresse bestätigen')
      // A language the service does not ship: its own mail where it has one, the phrases of the default.
      expect(custom.render('reset-password', 'it-IT', 'x@example.com', TEMPLATE_SAMPLES['reset-password']).text).toContain('Ciao Ada Lovelace')
      expect(custom.render('reset-password', 'it', 'x@example.com', TEMPLATE_SAMPLES['reset-password']).text).toContain('(1 hour)')
      expect(custom.resolve('verify-email', 'it')).toBe('en')
      expect(custom.locales).toEqual(['en', 'de', 'es', 'fr', 'it'])
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('refuses to start on a template that is not a valid message, or a language with half a template', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'ups-mail-broken-'))
    try {
      mkdirSync(path.join(folder, 'de'))
      writeFileSync(path.join(folder, 'de', 'verify-email.txt'), 'Subject: Hallo {$name\nText\n')
      expect(() => loadTemplates(folder)).toThrow(/de\/verify-email \(subject\) is not a valid message/)
      rmSync(path.join(folder, 'de'), { recursive: true })
      mkdirSync(path.join(folder, 'pt'))
      writeFileSync(path.join(folder, 'pt', 'verify-email.txt'), 'Subject: Olá\nTexto\n')
      expect(() => loadTemplates(folder)).toThrow(/pt\/verify-email needs both its .txt and its .html/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
