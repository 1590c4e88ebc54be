import { isConvention, mergeContributions } from '@restwell/core/internal'
import { test } from 'tap'
import { methods } from '../src/index.js'

test('the methods convention: a request step and a not-found handler step; Allow is exposed', async (t) => {
  t.ok(isConvention(methods))
  t.same(methods.phases, ['request', 'notFoundHandler'])
  t.same(mergeContributions([{ convention: methods, options: methods.options({}) }]), {
    queryParameters: [],
    requestHeaders: [],
    responseHeaders: ['allow'],
  })
})

test('its Allow goes on answers of no route only: a route exposes none of it', async (t) => {
  t.same(methods.routeResponseHeaders?.({} as never, {} as never), [])
})
