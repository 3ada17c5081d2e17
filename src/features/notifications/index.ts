// The notifications slice's public face: what other slices may use. Everything else in this folder
// is the slice's own (eslint.config.js refuses a reach past this file).
export type { NotificationService, Reply } from './notifications.service.js'
