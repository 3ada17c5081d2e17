// The `filter` query parameter of a list (docs/api.md "Filter"), documented from the list's own
// vocabulary: the OpenAPI document names exactly the columns the checker allows.
import { Type } from 'typebox'

import { ValidationErrorResponse } from '../../api/common/responses.js'
import type { FilterVocabulary } from './filter-language.js'
import { FILTER_MAX_DEPTH, FILTER_MAX_LENGTH, FILTER_MAX_TERMS } from './filter-language.js'

export function filterParameter(vocabulary: FilterVocabulary, example: string) {
  return Type.String({
    maxLength: FILTER_MAX_LENGTH,
    description: `Comparisons joined by \`&&\` and \`||\`, grouped by parentheses: \`${example}\`. Names: ${Object.keys(vocabulary.columns).map((name) => `\`${name}\``).join(', ')}, and \`fields.<name>\` for a declared custom field; operators \`= != > >= < <=\`, \`~\` and \`!~\` (contains, or not: a case-insensitive substring of a text, an item of a list); values are "texts", numbers, true, false and null. At most ${FILTER_MAX_TERMS} comparisons, ${FILTER_MAX_DEPTH} levels. Always within what the caller may list; a field the caller may not read is refused. 400 invalid_filter says where a filter fails`,
    // No `examples`: Swagger UI's "Try it out" fills a parameter with its example, and a filter
    // naming a field this deployment does not declare would be its 400.
  })
}

/** A 422 of a filtered list of users or organizations: a broken parameter, or a filter no index narrows of too large a list. */
export const FilterRefusedResponse = Type.Object(
  {
    ...ValidationErrorResponse.properties,
    code: Type.Union([Type.Literal('validation_failed'), Type.Literal('filter_too_broad')], {
      description: '`validation_failed`; `filter_too_broad` for a filter no index narrows of a list of more than 10,000 records.',
    }),
  },
  { title: 'FilterRefusedResponse', description: 'Validation failed, or the filter is too broad' },
)
