// Shared by the bare servers: the same responses as the service, byte for byte apart from the
// Date header (same body, same content type, same security headers), with nothing else.
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
}

export function sendJson(res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...SECURITY_HEADERS,
  })
  res.end(body)
}

export const userRead = (row) => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  profile_image_url: row.profile_image_url,
  tier_id: row.tier_id,
})

export const postRead = (row) => ({
  id: row.id,
  title: row.title,
  text: row.text,
  media_url: row.media_url,
  author_id: row.author_id,
  created_at: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
  updated_at: row.updated_at instanceof Date ? row.updated_at.toISOString() : row.updated_at,
})

export const likeContains = (text) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Parses the four read routes the benchmark compares. */
export function route(url) {
  const [path, query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  let match = /^\/services\/v1\/users\/(\d+)$/.exec(path)
  if (match) return { name: 'get-user', id: Number(match[1]) }
  if (path === '/services/v1/users/' || path === '/services/v1/users') {
    return { name: 'list-users', page: Number(params.get('page') ?? 1), perPage: Number(params.get('items_per_page') ?? 10) }
  }
  if (path === '/services/v1/users/search') return { name: 'search-users', text: params.get('name') ?? '' }
  if (path === '/services/v1/posts/' || path === '/services/v1/posts') {
    return { name: 'list-posts', page: Number(params.get('page') ?? 1), limit: Number(params.get('limit') ?? 10) }
  }
  return undefined
}
