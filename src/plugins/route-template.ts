import { normaliseRoutePath } from '../shared/route-path.js'

/**
 * A Fastify route URL (":param") in the template form that limit rules, metrics and traces use
 * ("{param}", no trailing slash). Router syntax stays here, at the HTTP edge.
 */
export const routeTemplateOf = (url: string) => normaliseRoutePath(url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))
