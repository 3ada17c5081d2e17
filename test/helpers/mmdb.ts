// Writes a small MaxMind DB (the format GeoLite2 City ships in) for tests: IPv4 networks mapped
// to a city and a country, with their names in several languages. The format: a binary search
// tree over the address bits (24-bit records), 16 zero bytes, the data section (MaxMind's typed
// encoding), then "\xAB\xCD\xEFMaxMind.com" and the metadata map.
import { writeFileSync } from 'node:fs'

export interface MmdbPlace {
  /** An IPv4 network, as `a.b.c.d/bits`. */
  network: string
  city: Record<string, string>
  country: Record<string, string> & { iso_code?: string }
}

type Value = string | number | bigint | Value[] | { [key: string]: Value }

/** MaxMind's encoding of a value: a control byte (type and size), then the bytes. */
function encode(value: Value): Buffer {
  if (typeof value === 'string') return withControl(2, Buffer.from(value, 'utf8'))
  if (typeof value === 'bigint') return withControl(9, bigEndian(value))
  if (typeof value === 'number') return withControl(value > 0xffff ? 6 : 5, bigEndian(BigInt(value)))
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)])
  const entries = Object.entries(value)
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])])
}

function bigEndian(value: bigint): Buffer {
  const bytes: number[] = []
  for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn))
  return Buffer.from(bytes)
}

function withControl(type: number, payload: Buffer): Buffer {
  return Buffer.concat([control(type, payload.length), payload])
}

/** The control byte(s): types above 7 are "extended" (type 0, then a byte of type - 7); sizes above 28 take more bytes. */
function control(type: number, size: number): Buffer {
  const typeBits = type > 7 ? 0 : type
  const extension = type > 7 ? [type - 7] : []
  if (size < 29) return Buffer.from([(typeBits << 5) | size, ...extension])
  if (size < 29 + 256) return Buffer.from([(typeBits << 5) | 29, ...extension, size - 29])
  throw new Error('mmdb test writer: value too long')
}

function record24(value: number): number[] {
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]
}

export function writeMmdb(file: string, places: MmdbPlace[]): void {
  // Each place's data, one after another in the data section.
  const data: Buffer[] = []
  const offsets: number[] = []
  let offset = 0
  for (const place of places) {
    const { iso_code: isoCode, ...countryNames } = place.country
    const encoded = encode({ city: { names: place.city }, country: { ...(isoCode ? { iso_code: isoCode } : {}), names: countryNames } })
    offsets.push(offset)
    data.push(encoded)
    offset += encoded.length
  }
  // The tree: node 0 is the root; each place adds a path of nodes down its prefix.
  const nodes: [number | 'empty', number | 'empty'][] = [['empty', 'empty']]
  const leaves: { node: number; side: 0 | 1; place: number }[] = []
  places.forEach((place, index) => {
    const [address = '', bits = '32'] = place.network.split('/')
    const prefix = address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0)
    const length = Number(bits)
    let node = 0
    for (let depth = 0; depth < length; depth++) {
      const side = ((prefix >>> (31 - depth)) & 1) as 0 | 1
      if (depth === length - 1) {
        leaves.push({ node, side, place: index })
        break
      }
      const next = nodes[node]![side]
      if (typeof next === 'number') node = next
      else {
        nodes.push(['empty', 'empty'])
        nodes[node]![side] = nodes.length - 1
        node = nodes.length - 1
      }
    }
  })
  const count = nodes.length
  const tree = Buffer.from(
    nodes.flatMap((pair, node) =>
      pair.flatMap((next, side) => {
        const leaf = leaves.find((entry) => entry.node === node && entry.side === side)
        if (leaf) return record24(count + 16 + offsets[leaf.place]!)
        return record24(next === 'empty' ? count : next)
      }),
    ),
  )
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: 4,
    database_type: 'GeoLite2-City',
    languages: ['en', 'de', 'fr', 'es'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: 'A test database' },
  })
  writeFileSync(file, Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), metadata]))
}
