// The data-export feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export { DataExportService } from './data-export.service.js'
export type { ExportSources } from './export-content.js'
export { sendExportZip } from './export-download.http.js'
export type { DataExportSettings } from './settings.js'
export { dataExportSettings } from './settings.js'
