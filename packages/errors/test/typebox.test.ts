/** `@restwell/errors/typebox`: the TypeBox the built packages load, builder and errors in one module. */
import { Kind, Type as OwnType } from '@sinclair/typebox'
import { test } from 'tap'
import { Errors, Kind as BundledKind, Type, ValueErrorType } from '../src/typebox.js'

test('the type builder and the error iterator, interchangeable with TypeBox itself', async (t) => {
  const schema = Type.Object({ max: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })
  t.equal(BundledKind, Kind, 'the same Symbol.for keys')
  t.equal(schema[Kind], 'Object')
  const [first] = [...Errors(schema, { max: 0 })]
  t.equal(first?.type, ValueErrorType.IntegerMinimum)
  t.equal(first?.path, '/max')
  const mixed = OwnType.Object({ inner: schema })
  t.same([...Errors(mixed, { inner: { max: 2 } })], [], "an app's own TypeBox composes it")
})
