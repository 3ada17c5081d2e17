// Hash routes (#/users/7?page=2): the service serves one page at /admin/, and every view is a
// fragment of it, so a reload or a shared link opens the same view.
import { useEffect, useState } from 'preact/hooks'

export interface Route {
  /** Path segments: #/users/7 → ['users', '7']. */
  segments: string[]
  query: URLSearchParams
}

function current(): Route {
  const [path = '', search = ''] = location.hash.replace(/^#/, '').split('?')
  return { segments: path.split('/').filter(Boolean), query: new URLSearchParams(search) }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const changed = () => setRoute(current())
    addEventListener('hashchange', changed)
    return () => removeEventListener('hashchange', changed)
  }, [])
  return route
}

/** The href of a view, leaving out empty parameters. */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value))
  const search = params.toString()
  return `#${path}${search ? `?${search}` : ''}`
}

export function navigate(path: string, query: Record<string, string | number | undefined> = {}): void {
  location.hash = href(path, query)
}
