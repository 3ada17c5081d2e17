// Answers a data export's ZIP: an attachment, never cached, never sniffed. The API's download and
// the service's own download page (the mailed link's) both answer with it.
import type { FastifyReply } from 'fastify'

import type { ExportDownload } from './data-export.service.js'

export function sendExportZip(reply: FastifyReply, download: ExportDownload): FastifyReply {
  return reply
    .header('content-type', 'application/zip')
    .header('content-length', download.size)
    .header('content-disposition', `attachment; filename="${download.fileName}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(download.body)
}
