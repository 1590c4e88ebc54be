import Fastify from 'fastify'
import restwell from 'restwell'
const app = Fastify()
await app.register(restwell, {
  naming: false,
  cors: { origin: ['https://app.example'], credentials: true },
  auth: { verify: async (token) => (token === 'good' ? { id: 'u1' } : null) },
})
app.get('/books/:id', async (req) => ({ id: 1, who: req.principal?.id }))
app.patch(
  '/books/:id',
  {
    schema: {
      response: {
        200: { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } } },
      },
    },
  },
  async (req) => req.applyPatch({ id: 1, title: 'Dune' }),
)
app.get('/public', { config: { auth: false } }, async () => ({ ok: 1 }))
try {
  await app.ready()
} catch (e) {
  console.log('ERR', e.message)
  process.exit()
}
const show = async (n, o) => {
  const r = await app.inject(o)
  const h = r.headers
  console.log(
    n,
    r.statusCode,
    JSON.stringify({
      acao: h['access-control-allow-origin'],
      acac: h['access-control-allow-credentials'],
      acam: h['access-control-allow-methods'],
      acah: h['access-control-allow-headers'],
      maxage: h['access-control-max-age'],
      vary: h.vary,
      www: h['www-authenticate'],
      cc: h['cache-control'],
    }),
    r.body.slice(0, 100),
  )
}
await show('preflight patch', {
  method: 'OPTIONS',
  url: '/books/1',
  headers: {
    origin: 'https://app.example',
    'access-control-request-method': 'PATCH',
    'access-control-request-headers': 'authorization, content-type',
  },
})
await show('preflight bad origin', {
  method: 'OPTIONS',
  url: '/books/1',
  headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' },
})
await show('get no token', { url: '/books/1', headers: { origin: 'https://app.example' } })
await show('get bad token', {
  url: '/books/1',
  headers: { origin: 'https://app.example', authorization: 'Bearer bad' },
})
await show('get good', {
  url: '/books/1',
  headers: { origin: 'https://app.example', authorization: 'Bearer good' },
})
await show('patch good', {
  method: 'PATCH',
  url: '/books/1',
  headers: {
    origin: 'https://app.example',
    authorization: 'Bearer good',
    'content-type': 'application/merge-patch+json',
  },
  payload: '{"title":"X"}',
})
await show('public evil', { url: '/public', headers: { origin: 'https://evil.example' } })
await show('basic scheme', { url: '/books/1', headers: { authorization: 'Basic dTpw' } })
await show('unknown 404 no token', { url: '/nope' })
