// GET /api/v2/admin/mail: the outbox for a person testing by hand (MAIL_PREVIEW, on in
// development): each message's text and its links, so a verification or reset link is one click
// away in the admin console's Mail page. Off elsewhere (404 mail_preview_off): the bodies hold
// live tokens.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { localeTag } from '../../shared/locale.js'
import { PageNumber } from '../../shared/page-number.js'
import type { QueuedMail } from './mail.js'
import { TEMPLATE_NAMES } from './templates.js'

const QueuedMailRead = Type.Object(
  {
    id: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    text: Type.String({ description: 'The plain-text body, as sent' }),
    links: Type.Array(Type.String(), { description: 'Every link in the text, in order' }),
  },
  { title: 'QueuedMailRead' },
)
const QueuedMailPage = PageEnvelopeSchema(QueuedMailRead, 'QueuedMailPage')
const MailQuery = Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }) })

const toQueuedMailRead = (mail: QueuedMail) => ({
  id: mail.id,
  to: mail.to,
  subject: mail.subject,
  status: mail.status,
  attempts: mail.attempts,
  last_error: mail.lastError,
  created_at: mail.createdAt,
  sent_at: mail.sentAt,
  text: mail.text,
  links: mail.links,
})

const MailTemplateList = Type.Object(
  {
    templates: Type.Array(Type.String(), { description: 'Every mail the service sends' }),
    locales: Type.Array(Type.String(), { description: 'The languages with templates of their own, the default first' }),
  },
  { title: 'MailTemplateList' },
)
const MailTemplatePreview = Type.Object(
  {
    name: Type.String(),
    locale: Type.String({ description: 'The language it is written in: the one asked for, its language, or the default (the fallback a recipient gets)' }),
    subject: Type.String(),
    text: Type.String(),
    html: Type.String({ description: 'The HTML body; show it in a sandboxed frame' }),
  },
  { title: 'MailTemplatePreview' },
)
const PreviewParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) })
const PreviewQuery = Type.Object({ locale: Type.Optional(localeTag('The language to render it in (BCP 47); the nearest one there is when it has none of its own')) })

const adminMailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { mail } = app.services

  app.get(
    '/mail-templates',
    protectedRoute(app, { tags: ['admin'], summary: 'The mail templates and the languages they are written in', response: { 200: MailTemplateList, ...errorResponses(403) } }, superusersOnly),
    async () => ({ templates: [...TEMPLATE_NAMES], locales: (await mail.templates()).locales }),
  )

  app.get(
    '/mail-templates/:name/preview',
    protectedRoute(app, {
      tags: ['admin'],
      summary: 'A mail template rendered with example values in a language (?locale=de), or the nearest one it has',
      params: PreviewParams,
      querystring: PreviewQuery,
      response: { 200: MailTemplatePreview, ...errorResponses(403, 404, 422) },
    }, superusersOnly),
    async (request) => {
      const { locale, subject, text, html } = await mail.previewTemplate(tokenCallerOf(request).user, request.params.name, request.query.locale)
      return { name: request.params.name, locale, subject, text, html }
    },
  )

  app.get(
    '/mail',
    protectedRoute(app, {
      tags: ['admin'],
      summary: 'Queued and sent mail, newest first, with its text and links (MAIL_PREVIEW, on in development)',
      querystring: MailQuery,
      response: { 200: QueuedMailPage, ...errorResponses(403, 404, 422) },
    }, superusersOnly),
    async (request) => {
      const { page, limit } = request.query
      const found = await mail.preview(tokenCallerOf(request).user, { page, limit, countTotal: true })
      return toPageEnvelope(found, { page, limit }, toQueuedMailRead)
    },
  )
}

export default adminMailRoutes
