// The reports slice's public face: what other slices may use. Everything else in this folder is the
// slice's own (eslint.config.js refuses a reach past this file).
export type { Report } from './report.js'
export { toOwnReportRead } from './reports.mappers.js'
export type { ReportService } from './reports.service.js'
