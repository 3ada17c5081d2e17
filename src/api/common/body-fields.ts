// The fields a route's body schema names, as the route-table checks read them (the app's, and a
// slice's own: the doors' account field).

/** The top-level fields a body schema names, in every branch of a union. */
export function bodyFieldsOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const { properties, anyOf, oneOf, allOf } = schema as { properties?: object; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] }
  const branches = [...(anyOf ?? []), ...(oneOf ?? []), ...(allOf ?? [])]
  return [...new Set([...Object.keys(properties ?? {}), ...branches.flatMap(bodyFieldsOf)])]
}
