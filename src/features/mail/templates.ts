// Mail templates are files, one folder per language: `mail-templates/<locale>/<name>.txt` (first
// line `Subject: …`, then the plain-text body) and `<name>.html`, each a Unicode MessageFormat 2
// message (the `messageformat` package) with {$placeholders}; and `phrases.json`, the language's
// short messages that services name instead of writing words (a duration, a list of what ended,
// a role), where plurals are chosen. A mail is written in its recipient's language: the exact
// locale, else its language, else the default. MAIL_TEMPLATES_DIR names a folder laid out the
// same way whose files replace the bundled ones one by one; a template at its top level (the
// layout before languages, with {{placeholders}}) replaces the default language's.
//
// This file is what the rest of the service names (the templates, the phrases, durations); the
// templates themselves are read and compiled by message-templates.ts, loaded with the first mail
// (or at start, to check an operator's own: MAIL_TEMPLATES_DIR), not at every start.
import { projectPath } from '../../shared/project-files.js'
import type { MailMessage, MailTemplateName } from './mail.js'

export const DEFAULT_TEMPLATES_DIR = projectPath('mail-templates')

/** Every mail the service sends; each language ships each one. */
export const TEMPLATE_NAMES: readonly MailTemplateName[] = [
  'verify-email',
  'reset-password',
  'email-changed',
  'email-login',
  'reauthentication-code',
  'ways-in-ended',
  'org-invitation',
  'impersonation-started',
  'account-deletion-scheduled',
  'new-device-sign-in',
  'data-export-ready',
  'report-resolved',
  'new-reply',
]


/** A short message of the recipient's language, named by a service instead of English words. */
export interface MailPhrase {
  phrase: string
  values?: Record<string, string | number>
}

/** What a placeholder takes: text, a number or a time (formatted in the mail's language), a phrase, or phrases read as a list ("a, b and c"). */
export type MailValue = string | number | Date | MailPhrase | readonly MailPhrase[]

export type MailValues = Record<string, MailValue>

export const phrase = (name: string, values?: Record<string, string | number>): MailPhrase => (values === undefined ? { phrase: name } : { phrase: name, values })

/** A duration in the mail's language, from minutes: "30 minutes", "1 hour", "7 days". */
export function duration(minutes: number): MailPhrase {
  // A day is said in hours up to 24 ("24 hours"), in days beyond ("7 days").
  if (minutes % 1440 === 0 && minutes > 1440) return phrase('duration.days', { count: minutes / 1440 })
  if (minutes % 60 === 0) return phrase('duration.hours', { count: minutes / 60 })
  return phrase('duration.minutes', { count: minutes })
}

/** A rendered mail, and the language it was written in. */
export type RenderedMail = MailMessage & { locale: string }

/** A placeholder or phrase that could not be filled: the mail still goes, with the gap shown. */
export type RenderProblem = (problem: { template: MailTemplateName; locale: string; message: string }) => void
