// Express 5 + cors + compression + method-override + the built-in ETag (weak, over the
// identity body; req.fresh -> 304) + a negotiator-based Accept check (406). Express has no
// 405: a known path with an unrouted method is a 404. The hashed items get the built-in ETag
// alone (the handler sets none). A POST's Idempotency-Key is the same by-hand store as raw node's.
import compression from 'compression'
import cors from 'cors'
import express from 'express'
import methodOverride from 'method-override'
import Negotiator from 'negotiator'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  etagListHas,
  HASHED_ITEMS,
  hashEtag,
  ITEM_BY_ID,
  itemEtag,
  mergePatch,
  pageBody,
  pageLink,
  queryResult,
  readPageQuery,
} from '../data.mjs'
import { fingerprintOf, KEY_HEADER, lookUpKey, REPLAYED, settleKey } from './by-hand.mjs'

const SERVED = ['application/json']

export async function build() {
  const app = express()
  app.disable('x-powered-by')
  app.use(cors({ origin: '*', maxAge: 86400 }))
  app.use(compression())
  app.use(methodOverride('X-HTTP-Method-Override'))
  app.use((req, res, next) => {
    if (new Negotiator(req).mediaType(SERVED) === undefined) {
      res.status(406).set('accept', SERVED.join(', ')).json({ error: 'Not Acceptable' })
      return
    }
    next()
  })
  app.use(express.json({ type: ['application/json', 'application/merge-patch+json'] }))

  app.get('/items/:id', (req, res) => {
    const item = ITEM_BY_ID.get(req.params.id)
    if (!item) return res.status(404).json({ error: 'Not found' })
    res.set('etag', itemEtag(item)).json(item)
  })
  app.get(`${HASHED_ITEMS}/:id`, (req, res) => {
    const item = ITEM_BY_ID.get(req.params.id)
    if (!item) return res.status(404).json({ error: 'Not found' })
    res.json(item)
  })
  app.get('/items', (req, res) => {
    const { page, limit } = readPageQuery(req.query)
    const body = pageBody(page, limit)
    res.set('link', pageLink(body)).json(body)
  })
  // Express routes QUERY (`app.query`, from node's methods), but its `req.fresh` is for GET and
  // HEAD only: the ETag and the 304 of a QUERY are written by hand.
  app.query('/items', (req, res) => {
    if (!req.is('application/json'))
      return res.status(415).json({ error: 'Unsupported Media Type' })
    const bytes = JSON.stringify(queryResult(req.body))
    const etag = hashEtag(bytes)
    res.set('etag', etag)
    if (etagListHas(req.get('if-none-match'), etag, true)) return res.status(304).end()
    res.type('json').send(bytes)
  })
  app.patch('/items/:id', (req, res) => {
    const item = ITEM_BY_ID.get(req.params.id)
    if (!item) return res.status(404).json({ error: 'Not found' })
    if (!req.is('application/merge-patch+json')) {
      return res.status(415).json({ error: 'Unsupported Media Type' })
    }
    const etag = itemEtag(item)
    const ifMatch = req.get('if-match')
    if (ifMatch !== undefined && !etagListHas(ifMatch, etag, false)) {
      return res.status(412).json({ error: 'Precondition Failed' })
    }
    res.set('etag', etag).json(mergePatch(item, req.body))
  })
  app.post('/items', (req, res) => {
    const value = req.get(KEY_HEADER)
    let claim
    if (value !== undefined) {
      const fingerprint = fingerprintOf('POST', req.originalUrl, JSON.stringify(req.body))
      const held = lookUpKey(value, req.ip, 'POST', '/items', fingerprint)
      if (held.error !== undefined) return res.status(held.error[0]).json({ error: held.error[2] })
      if (held.replay !== undefined) {
        const { status, headers, body } = held.replay
        for (const [name, v] of headers) res.set(name, v)
        return res.status(status).set(REPLAYED, 'true').send(body)
      }
      claim = held.claim
    }
    const bytes = Buffer.from(JSON.stringify({ ...CREATED_ITEM, ...req.body }))
    const type = 'application/json; charset=utf-8'
    if (claim !== undefined) {
      settleKey(
        claim,
        201,
        [
          ['content-type', type],
          ['location', CREATED_LOCATION],
        ],
        bytes,
      )
    }
    res.status(201).set('content-type', type).set('location', CREATED_LOCATION).send(bytes)
  })
  app.put('/items/:id', (req, res) => {
    const item = ITEM_BY_ID.get(req.params.id)
    if (!item) return res.status(404).json({ error: 'Not found' })
    res.json({ ...req.body, id: item.id })
  })

  let server
  return {
    listen: () =>
      new Promise((resolve, reject) => {
        server = app.listen(0, '127.0.0.1', (err) =>
          err ? reject(err) : resolve(server.address().port),
        )
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
    expect: {
      405: { status: 404, note: 'Express answers 404, no 405: not in this stack' },
    },
  }
}
