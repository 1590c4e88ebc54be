/**
 * TypeBox as the restwell packages use it at run time, in one module that every package's build
 * imports in place of TypeBox's own entry points (see `tsdown.base.ts`): the builders the
 * packages call, `Kind`, and the error iterator. Declarations keep naming `@sinclair/typebox`.
 * Only these are bundled, half the size of TypeBox's whole builder; `test/typebox.test.ts` fails
 * when a package calls a builder missing here.
 */
import * as TypeBox from '@sinclair/typebox'

/** The builders the packages call, as `Type.Object(...)` and so on. */
export const Type = {
  Any: TypeBox.Any,
  Array: TypeBox.Array,
  Boolean: TypeBox.Boolean,
  Date: TypeBox.Date,
  Function: TypeBox.Function,
  Integer: TypeBox.Integer,
  Literal: TypeBox.Literal,
  Number: TypeBox.Number,
  Object: TypeBox.Object,
  Omit: TypeBox.Omit,
  Optional: TypeBox.Optional,
  Record: TypeBox.Record,
  String: TypeBox.String,
  Union: TypeBox.Union,
  Unknown: TypeBox.Unknown,
  Unsafe: TypeBox.Unsafe,
}
export { Kind } from '@sinclair/typebox'
export { Errors, ValueErrorType } from '@sinclair/typebox/errors'
