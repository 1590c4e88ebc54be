/** Seed data written on the first start (when the migrations created the schema). */
import { deflateSync } from 'node:zlib'
import type { Queryable } from './db.js'

const AUTHORS = [
  { name: 'Ursula K. Le Guin', bio: 'American author of speculative fiction.' },
  { name: 'Octavia E. Butler', bio: 'American science fiction author.' },
  { name: 'Stanisław Lem', bio: null },
] as const

const BOOKS = [
  ['The Left Hand of Darkness', '978-0441478125', 'available', 0, '1969-03-01'],
  ['A Wizard of Earthsea', '978-0547773742', 'checked-out', 0, '1968-11-01'],
  ['The Dispossessed', '978-0061054884', 'available', 0, '1974-05-01'],
  ['Kindred', '978-0807083697', 'available', 1, '1979-06-01'],
  ['Parable of the Sower', '978-1538732182', 'archived', 1, '1993-10-01'],
  ['Solaris', '978-0156027601', 'available', 2, '1961-01-01'],
  ['The Cyberiad', '978-0156027595', 'checked-out', 2, null],
] as const

let crcTable: Uint32Array | undefined
function crc32(bytes: Buffer): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      crcTable[n] = c >>> 0
    }
  }
  let crc = 0xffffffff
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A real PNG (a striped book cover in two colours), so `curl -r` has bytes to cut. */
export function coverPng(width: number, height: number, seed: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.writeUInt8(8, 8) // bit depth
  header.writeUInt8(2, 9) // truecolour RGB
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1)
    raw[row] = 0 // filter: none
    for (let x = 0; x < width; x++) {
      const stripe = ((x + y + seed * 7) >> 3) % 2 === 0
      const i = row + 1 + x * 3
      raw[i] = stripe ? 40 + seed * 50 : 230
      raw[i + 1] = stripe ? 80 : 200 - ((x * 3 + seed) % 60)
      raw[i + 2] = stripe ? 140 : (y * 255) / height
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** Writes the seed authors, books and two covers, in the caller's transaction. */
export async function seed(tx: Queryable): Promise<void> {
  const ids: number[] = []
  for (const author of AUTHORS) {
    const result = await tx.query<{ id: number }>(
      'insert into authors (name, bio) values ($1, $2) returning id',
      [author.name, author.bio],
    )
    ids.push((result.rows[0] as { id: number }).id)
  }
  const bookIds: number[] = []
  for (const [title, isbn, status, author, published] of BOOKS) {
    const result = await tx.query<{ id: number }>(
      `insert into books (title, isbn, status, author_id, published_at)
       values ($1, $2, $3, $4, $5) returning id`,
      [title, isbn, status, ids[author], published],
    )
    bookIds.push((result.rows[0] as { id: number }).id)
  }
  for (const [index, bookId] of bookIds.slice(0, 2).entries()) {
    await tx.query('insert into book_covers (book_id, content_type, data) values ($1, $2, $3)', [
      bookId,
      'image/png',
      coverPng(160, 240, index),
    ])
  }
}
