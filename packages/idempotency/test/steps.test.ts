/** The steps' own costs: what a request that takes a key pays, whatever the store. */
import * as crypto from 'node:crypto'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { test } from 'tap'
import { resolveIdempotencyOptions } from '../src/options.js'
import type { IdempotencyStore, Running } from '../src/store.js'

test("a marker's token: one random prefix per process and a counter, unique per claim", async (t) => {
  let uuids = 0
  const steps = await t.mockImport<typeof import('../src/steps.js')>('../src/steps.js', {
    'node:crypto': {
      ...crypto,
      randomUUID: () => {
        uuids += 1
        return crypto.randomUUID()
      },
    },
  })
  const markers: Running[] = []
  const store: IdempotencyStore = {
    claim: (_key, marker) => {
      markers.push(marker)
      return undefined
    },
    complete: () => true,
    release: () => undefined,
    close: async () => undefined,
  }
  const settings = {
    options: resolveIdempotencyOptions({}),
    store,
    scope: () => 'address:1',
    log: {} as FastifyBaseLogger,
  }
  const step = steps.lookUpKey({ settings, route: '/books', required: false, methods: undefined })
  for (let i = 0; i < 3; i++) {
    const request = {
      method: 'POST',
      url: '/books',
      headers: { 'idempotency-key': `"k${i}"` },
      body: { i },
    } as unknown as FastifyRequest
    t.equal(step(request, {} as FastifyReply), undefined, 'claimed: the handler runs')
  }
  t.equal(uuids, 1, 'one randomUUID, when the module loads')
  const tokens = markers.map((m) => m.token)
  t.equal(new Set(tokens).size, 3, 'a token per claim')
  const prefix = tokens[0]?.split('.')[0]
  t.ok(prefix && tokens.every((token) => token.startsWith(`${prefix}.`)), 'the process prefix')
})
