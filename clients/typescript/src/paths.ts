// The service answers a path with or without its trailing slash; the client's types accept both,
// so `/api/v2/posts` and `/api/v2/posts/` (as the service's own docs write lists) both compile.
import type { paths as documentedPaths } from './schema.js'

type WithSlash<P> = { [K in keyof P as K extends `${string}/` ? never : K extends string ? `${K}/` : never]: P[K] }

export type paths = documentedPaths & WithSlash<documentedPaths>
