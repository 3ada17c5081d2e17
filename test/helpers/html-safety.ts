// What in a piece of HTML could run script or leave the page's rules, found by a real HTML parser
// (htmlparser2) rather than by matching strings: the parts of the HTML a sanitizer must never let
// through, each named.
import { Parser } from 'htmlparser2'

/** The elements a post's HTML may hold (src/features/posts/markdown.ts). */
const ALLOWED_TAGS = new Set(['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'])
const URL_ATTRIBUTES = new Set(['href', 'src'])
/** The schemes each element's URL may have; a URL without a scheme is relative to the page. */
const SAFE_SCHEMES: Record<string, readonly string[]> = { a: ['http', 'https', 'mailto'], img: ['http', 'https'] }

/** Why a URL is unsafe, as a browser reads it (tabs, newlines and control characters dropped); undefined when it is safe. */
function unsafeUrl(tag: string, value: string): string | undefined {
  const url = [...value].filter((character) => character > ' ').join('')
  // Two slashes, or backslashes (which browsers read as slashes), make a URL of another site without a scheme.
  if (/^[/\\]{2}/.test(url)) return 'protocol-relative'
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase()
  if (scheme !== undefined && !(SAFE_SCHEMES[tag] ?? []).includes(scheme)) return `scheme ${scheme}`
  return undefined
}

/** Each unsafe part of the HTML, described; none for safe HTML. */
export function unsafeParts(html: string): string[] {
  const found: string[] = []
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (!ALLOWED_TAGS.has(name)) found.push(`<${name}> element`)
        for (const [attribute, value] of Object.entries(attributes)) {
          if (attribute.startsWith('on')) found.push(`${attribute} on <${name}>`)
          if (attribute === 'style' && !/^text-align:(?:left|right|center)$/.test(value)) found.push(`style "${value}" on <${name}>`)
          const why = URL_ATTRIBUTES.has(attribute) ? unsafeUrl(name, value) : undefined
          if (why) found.push(`${attribute}="${value}" on <${name}> (${why})`)
        }
        if (name === 'a' && /^https?:/i.test(attributes.href ?? '') && attributes.rel !== 'noopener nofollow ugc') found.push(`external link without rel: ${attributes.href}`)
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return found
}
