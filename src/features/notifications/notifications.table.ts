// The notifications slice's tables.
import type { Flag, Timestamp } from '../../db/column-types.js'

export interface NotificationSettingsTable {
  user_id: number
  reply_mail: Flag
}

export interface ReplyMailsTable {
  user_id: number
  post_id: number
  mailed_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    notification_settings: NotificationSettingsTable
    reply_mails: ReplyMailsTable
  }
}
