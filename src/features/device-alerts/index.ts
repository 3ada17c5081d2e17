// The device-alerts feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { DeviceAlertService } from './device-alerts.service.js'
export { Places } from './places.js'
export type { DeviceAlertSettings } from './settings.js'
export { deviceAlertSettings } from './settings.js'
