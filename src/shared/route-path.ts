// Route paths as limit rules, metrics and traces name them.

/** Route paths compare without a trailing slash (the router ignores it too). */
export const normaliseRoutePath = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
