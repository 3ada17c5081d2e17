// A user's files on their page: storage used against the quota, and the newest files.
import { call, client } from '../api.js'
import { formatTime, Loading, TableFrame, useLoad } from '../components.js'

const SHOWN = 50

/** Bytes as people read them (1 KiB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${value} ${units[0]}` : `${value.toFixed(1)} ${units[unit]}`
}

export function UserFiles({ userId }: { userId: number }) {
  const path = { params: { path: { user_id: userId } } }
  const loaded = useLoad(
    () =>
      Promise.all([
        call(() => client.GET('/api/v2/admin/users/{user_id}/usage', path)),
        call(() => client.GET('/api/v2/admin/users/{user_id}/files', { params: { path: { user_id: userId }, query: { limit: SHOWN } } })),
      ]),
    `files-of-${userId}`,
  )
  return (
    <Loading loaded={loaded}>
      {([usage, files]) => (
        <>
          <p data-testid="storage-usage">
            {formatBytes(usage.bytes)} of {formatBytes(usage.limit_bytes)} in {usage.files} of {usage.limit_files} files
          </p>
          {files.data.length === 0 ? (
            <p class="muted">No files.</p>
          ) : (
            <TableFrame label="Files">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Post</th>
                  <th scope="col">Uploaded</th>
                </tr>
              </thead>
              <tbody>
                {files.data.map((file) => (
                  <tr key={file.id}>
                    <td>{file.name}</td>
                    <td>{file.content_type}</td>
                    <td>{formatBytes(file.size)}</td>
                    <td>{file.post_id === null ? '—' : `#${file.post_id}`}</td>
                    <td>{formatTime(file.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
          )}
          {files.total_count > files.data.length && <p class="muted">Showing the newest {files.data.length} of {files.total_count}.</p>}
        </>
      )}
    </Loading>
  )
}
