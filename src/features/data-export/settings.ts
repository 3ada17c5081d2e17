// The data-export slice's settings (docs/configuration.md, Privacy).
import type { Env } from '../../shared/settings.js'
import { integer, linkTemplate } from '../../shared/settings.js'

export interface DataExportSettings {
  /**
   * DATA_EXPORT_LEASE_SECONDS: how long a build may go without renewing its claim before another
   * process takes the export over (its builder was killed); renewed every third of it.
   */
  leaseSeconds: number
  /** DATA_EXPORT_DOWNLOAD_URL: the frontend's page for the mailed download link ({token}); the service's own page when unset. */
  downloadPageUrl: string | undefined
}

export function dataExportSettings(env: Env): DataExportSettings {
  return { leaseSeconds: integer(env, 'DATA_EXPORT_LEASE_SECONDS', 60, 3, 3600), downloadPageUrl: linkTemplate(env, 'DATA_EXPORT_DOWNLOAD_URL') }
}
