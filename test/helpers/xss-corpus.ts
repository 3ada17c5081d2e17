// A published XSS corpus, and Markdown's own ways of carrying it. The corpus is the "Script
// Injection" section of the Big List of Naughty Strings (npm big-list-of-naughty-strings, MIT),
// read from the package as it ships; each string is tried as a paragraph and in every place
// Markdown puts a URL or text into HTML (link and image targets, autolinks, reference
// definitions, link text and titles). The Markdown-only vectors below are the ways Markdown
// itself writes a dangerous link or image, which a list of HTML strings does not cover.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** The strings of one section of the Big List of Naughty Strings (`#\t<title>`, a description, then strings). */
function naughtyStrings(section: string): string[] {
  const lines = readFileSync(require.resolve('big-list-of-naughty-strings/blns.txt'), 'utf8').split('\n')
  const start = lines.findIndex((line) => /^#\s+/.test(line) && line.replace(/^#\s+/, '').trim() === section)
  if (start < 0) throw new Error(`The corpus has no section "${section}"`)
  const strings: string[] = []
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!
    // A title line followed by a bare `#` starts the next section.
    if (line.startsWith('#') && lines[i + 1] === '#') break
    if (line.startsWith('#') || line.trim() === '') continue
    strings.push(line)
  }
  return strings
}

/** The corpus's script injections, as the package ships them. */
export const SCRIPT_INJECTIONS = naughtyStrings('Script Injection')

/** Markdown's own ways to write a link or an image that runs script or leaves http(s). */
export const MARKDOWN_VECTORS = [
  '[a](javascript:alert(1))',
  '[a](JaVaScRiPt:alert(1))',
  '[a](javascript&#58;alert(1))',
  '[a](javascript&#x3A;alert(1))',
  '[a](&#106;avascript:alert(1))',
  '[a](%6Aavascript:alert(1))',
  '[a](<javascript:alert(1)>)',
  '[a](   javascript:alert(1))',
  '[a](vbscript:msgbox(1))',
  '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[a](file:///etc/passwd)',
  '[a](//evil.example/)',
  '[a](/\\evil.example/)',
  '[a](\\\\evil.example/)',
  '![a](javascript:alert(1))',
  '![a](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![a](data:image/png;base64,iVBORw0KGgo=)',
  '<javascript:alert(1)>',
  '<vbscript:msgbox(1)>',
  '[r]: javascript:alert(1)\n\n[click][r]',
  '[a](https://example.com "x\\" onmouseover=\\"alert(1)")',
  '[a](https://example.com" onmouseover="alert(1))',
  '![a" onerror="alert(1)](https://example.com/a.png)',
  '`<script>alert(1)</script>`',
  '```html\n<script>alert(1)</script>\n```',
  '<a href="javascript:alert(1)">a</a>',
  '<img src=x onerror=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<details open ontoggle=alert(1)>',
  '| a |\n|---|\n| <img src=x onerror=alert(1)> |',
  'www.example.com/<script>alert(1)</script>',
  'http://example.com/?q="><script>alert(1)</script>',
]

/** Every string of the corpus in each place Markdown can put it, and the Markdown-only vectors. */
export function markdownXssCases(): string[] {
  const placed = SCRIPT_INJECTIONS.flatMap((payload) => [
    payload,
    `[link](${payload})`,
    `![image](${payload})`,
    `<${payload}>`,
    `[${payload}](https://example.com)`,
    `[link](https://example.com "${payload}")`,
    `[r]: ${payload}\n\n[ref][r]`,
  ])
  return [...placed, ...MARKDOWN_VECTORS]
}
