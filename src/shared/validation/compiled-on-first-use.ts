// Fastify compiles a validator for every request part and a serializer for every response of
// every route while the server starts, which was a third of the start-up time; most routes are
// not called in a process's first seconds, and many never. Each is compiled on its route's
// first use instead. A test compiles every one up front (AppOptions.compileSchemas: 'at-start'),
// so a schema that cannot compile fails that test, not a user's first request.
import SerializerSelector from '@fastify/fast-json-stringify-compiler'

import { serializerSchema } from './serializer-schema.js'

export type SchemaCompilation = 'on-first-use' | 'at-start'

/** `compile`'s result, made the first time it is called (or now, `at-start`). */
export function compiledOnFirstUse<I, O>(compile: () => (input: I) => O, when: SchemaCompilation): (input: I) => O {
  if (when === 'at-start') return compile()
  let compiled: ((input: I) => O) | undefined
  return (input) => (compiled ??= compile())(input)
}

type SerializerBuilder = ReturnType<typeof SerializerSelector>

/** Fastify's own serializer builder (fast-json-stringify), its compilers deferred to first use, each given the schema as serializer-schema.ts writes it. */
export function serializerBuilder(when: SchemaCompilation): SerializerBuilder {
  const build = SerializerSelector()
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options)
    return (route) => compiledOnFirstUse(() => compile({ ...route, schema: serializerSchema(route.schema) as typeof route.schema }), when)
  }
}
