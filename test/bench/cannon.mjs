// autocannon, able to send QUERY (RFC 10008). autocannon 9 refuses, before sending, a method
// that is not in its `lib/httpMethods.js` list (RFC 7231's and PATCH); QUERY is added to that
// list here, once, for every load the bench generates.
import { createRequire } from 'node:module'
import autocannon from 'autocannon'

const methods = createRequire(import.meta.url)('autocannon/lib/httpMethods.js')
if (!Array.isArray(methods)) {
  throw new Error(
    'autocannon/lib/httpMethods.js is no longer the list of the methods it sends: the QUERY workloads need another way to send QUERY',
  )
}
if (!methods.includes('QUERY')) methods.push('QUERY')

export default autocannon
