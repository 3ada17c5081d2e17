// The data-export slice's settings (docs/configuration.md, Privacy).
import type { Env } from '../../shared/settings.js'
import { integer } from '../../shared/settings.js'

export interface DataExportSettings {
  /**
   * DATA_EXPORT_LEASE_SECONDS: how long a build may go without renewing its claim before another
   * process takes the export over (its builder was killed); renewed every third of it.
   */
  leaseSeconds: number
}

export function dataExportSettings(env: Env): DataExportSettings {
  return { leaseSeconds: integer(env, 'DATA_EXPORT_LEASE_SECONDS', 60, 3, 3600) }
}
