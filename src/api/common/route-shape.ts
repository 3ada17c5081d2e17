// What the route-table checks read of a route (the app's, and a slice's own: the doors'): whether
// it changes something, and the fields its body schema names.

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether a route answering these methods changes something (any method but GET, HEAD and OPTIONS). */
export const changesSomething = (methods: readonly string[]) => methods.some((method) => !READ_METHODS.has(method))

/** The top-level fields a body schema names, in every branch of a union. */
export function bodyFieldsOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const { properties, anyOf, oneOf, allOf } = schema as { properties?: object; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] }
  const branches = [...(anyOf ?? []), ...(oneOf ?? []), ...(allOf ?? [])]
  return [...new Set([...Object.keys(properties ?? {}), ...branches.flatMap(bodyFieldsOf)])]
}
