// A checked filter as a tree (docs/api.md "Filter"): what the content-fields slice reads a filter
// into (filter-language.ts) and src/db/filter-sql.ts compiles. Names are already allow-listed when
// a tree exists: a column the list documents, or a declared custom field with its level.

export type FilterOperator = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~'
export type FilterLiteral = string | number | boolean | null

/** What a name holds, which decides its operators and the literal it is compared with. */
export type FilterKind = 'integer' | 'number' | 'text' | 'time' | 'boolean' | 'strings' | { oneOf: readonly string[] }

export type FilterTarget =
  | { column: string; kind: FilterKind }
  | { field: string; kind: FilterKind; level: 'public' | 'private' | 'server' }

export type FilterNode =
  | { kind: 'and' | 'or'; terms: FilterNode[] }
  | { kind: 'compare'; target: FilterTarget; op: FilterOperator; value: FilterLiteral }
