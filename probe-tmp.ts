import fastifySwagger from '@fastify/swagger'
import Fastify from 'fastify'
import restwell from 'restwell'
import { Validator } from '@seriousme/openapi-schema-validator'
for (const v of ['3.0.3', '3.2.0']) {
const app = Fastify()
await app.register(fastifySwagger, { openapi: { openapi: v, info: { title: 'b', version: '1' } } })
await app.register(restwell, { auth: { verify: () => ({ scopes: ['read'] }) } })
app.get('/books', async () => [])
app.route({ method: 'QUERY', url: '/books', schema: { body: { type: 'object', properties: { where: { type: 'object' } } }, response: { 200: { type: 'object' } } }, handler: async () => ({}) })
await app.ready()
const doc = app.swagger() as any
console.log(v, Object.keys(doc.paths['/books']), JSON.stringify(doc.paths['/books'].query?.responses ? Object.keys(doc.paths['/books'].query.responses) : null))
console.log(JSON.stringify(doc.paths['/books'].options.responses['200'].headers))
const val = new Validator()
console.log(JSON.stringify(await val.validate(structuredClone(doc))).slice(0, 500))
const r = await app.inject({ method: 'QUERY', url: '/books', payload: { where: {} } })
console.log(r.statusCode, r.headers)
const o = await app.inject({ method: 'OPTIONS', url: '/books' })
console.log(o.statusCode, o.headers.allow)
if (v === '3.2.0') console.log(JSON.stringify(doc.paths['/books'].query, null, 1).slice(0, 3000))
}
