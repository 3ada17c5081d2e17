// The filter language's grammar (docs/api.md "Filter"), in Peggy's notation: comparisons of a
// name with a literal, joined by && and ||, grouped by parentheses. The parser is generated from
// it by Peggy when the first filter is read (filter-language.ts), and builds the syntax tree the
// checker then holds to the allow-list; nothing of a filter ever becomes SQL text.
export const FILTER_GRAMMAR = String.raw`
Filter = _ expression:Or _ { return expression }

Or = head:And tail:(_ "||" _ @And)* { return tail.length === 0 ? head : { kind: 'or', terms: [head, ...tail] } }

And = head:Primary tail:(_ "&&" _ @Primary)* { return tail.length === 0 ? head : { kind: 'and', terms: [head, ...tail] } }

Primary
  = "(" _ inner:Or _ ")" { return { kind: 'group', inner } }
  / Comparison

Comparison = name:Name _ op:Operator _ value:Value { return { kind: 'compare', name, op, value, at: location().start.offset + 1 } }

Name "a name" = $([a-z_][a-z0-9_]* ("." [a-z][a-z0-9_]*)?)

Operator "an operator" = "!=" / "!~" / ">=" / "<=" / "=" / ">" / "<" / "~"

Value "a value" = Text / Number / "true" { return true } / "false" { return false } / "null" { return null }

Text
  = '"' characters:(@[^"\\\x00-\x1f] / Escape)* '"' { return characters.join('') }
  / "'" characters:(@[^'\\\x00-\x1f] / Escape)* "'" { return characters.join('') }

Escape = "\\" character:[\\"'] { return character }

Number = digits:$("-"? [0-9]+ ("." [0-9]+)?) { return Number(digits) }

_ "a space" = [ \t\n\r]*
`
