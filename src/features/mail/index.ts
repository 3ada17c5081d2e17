// The mail feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { MailService } from './mail.service.js'
export type { MailPhrase, MailValue, MailValues } from './templates.js'
export { duration, phrase } from './templates.js'
export { createMailTransport } from './transports.js'
