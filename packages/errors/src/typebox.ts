/**
 * TypeBox as the restwell packages use it at run time: the type builder and the error iterator
 * in one module, which every package's build imports in place of TypeBox's own entry points
 * (see `tsdown.base.ts`). Declarations keep naming `@sinclair/typebox`.
 */
export * from '@sinclair/typebox'
export * from '@sinclair/typebox/errors'
