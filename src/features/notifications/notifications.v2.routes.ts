// Version 2's notification settings: what the caller is mailed about.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'

const tags = ['notifications']
const NotificationSettingsRead = Type.Object({ reply_mail: Type.Boolean({ description: 'A mail when someone replies to your post or comment (once an hour at most per post)' }) }, { title: 'NotificationSettings' })
const NotificationSettingsUpdate = Type.Object({ reply_mail: Type.Boolean() }, { additionalProperties: false, title: 'NotificationSettingsUpdate' })

const notificationsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { notifications } = app.services

  app.get(
    '/users/me/notifications',
    protectedRoute(app, { tags, summary: 'What the caller is mailed about', response: { 200: NotificationSettingsRead } }),
    async (request) => ({ reply_mail: (await notifications.settingsOf(callerOf(request).user.id)).replyMail }),
  )

  app.patch(
    '/users/me/notifications',
    protectedRoute(app, { tags, summary: 'Change what the caller is mailed about', body: NotificationSettingsUpdate, response: { 200: NotificationSettingsRead, ...errorResponses(422) } }, { wayIn: 'none', impersonation: 'allowed' }),
    async (request) => ({ reply_mail: (await notifications.change(callerOf(request).user.id, { replyMail: request.body.reply_mail })).replyMail }),
  )
}

export default notificationsV2Routes
