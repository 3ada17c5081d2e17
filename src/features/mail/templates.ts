// Mail templates are files: `<name>.txt` (first line `Subject: …`, then the plain-text body) and
// `<name>.html`, with {{placeholders}}. The defaults live in mail-templates/ at the project root;
// MAIL_TEMPLATES_DIR names a directory whose files replace them one by one.
import { readFileSync } from 'node:fs'
import path from 'node:path'

import { escapeHtml } from '../../shared/escape-html.js'
import { projectPath } from '../../shared/project-files.js'
import type { MailMessage, MailTemplateName } from './mail.js'

export const DEFAULT_TEMPLATES_DIR = projectPath('mail-templates')

const TEMPLATE_NAMES: MailTemplateName[] = ['verify-email', 'reset-password', 'email-changed', 'email-login', 'reauthentication-code', 'ways-in-ended', 'org-invitation', 'impersonation-started', 'account-deletion-scheduled', 'new-device-sign-in', 'data-export-ready']

interface Template {
  subject: string
  text: string
  html: string
}


function fill(template: string, values: Record<string, string>, escape: (value: string) => string): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (key in values ? escape(values[key] ?? '') : whole))
}

function readTemplateFile(name: string, overrideDir: string | undefined): string {
  if (overrideDir !== undefined) {
    try {
      return readFileSync(path.join(overrideDir, name), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return readFileSync(path.join(DEFAULT_TEMPLATES_DIR, name), 'utf8')
}

/** Reads every template once, at start, so a missing or broken file stops the start, not a request. */
export function loadTemplates(overrideDir: string | undefined): Record<MailTemplateName, Template> {
  const templates = {} as Record<MailTemplateName, Template>
  for (const name of TEMPLATE_NAMES) {
    const [first = '', ...body] = readTemplateFile(`${name}.txt`, overrideDir).split('\n')
    const subject = /^Subject:\s*(.+)$/.exec(first.trim())?.[1]
    if (!subject) throw new Error(`mail template ${name}.txt must start with a "Subject: …" line`)
    templates[name] = { subject, text: body.join('\n').trim() + '\n', html: readTemplateFile(`${name}.html`, overrideDir) }
  }
  return templates
}

/** Line breaks of every kind a mail program may honour. */
// eslint-disable-next-line no-control-regex -- vertical tab and form feed break lines too
const LINE_BREAKS = /[\r\n\u000B\u000C\u0085\u2028\u2029]+/g

/** A value stays on the line the template put it on: a name can never add lines to a mail or a header. */
const oneLine = (value: string) => value.replace(LINE_BREAKS, ' ')

export function renderTemplate(template: Template, to: string, values: Record<string, string>): MailMessage {
  return {
    to,
    subject: fill(template.subject, values, oneLine),
    text: fill(template.text, values, oneLine),
    html: fill(template.html, values, escapeHtml),
  }
}
