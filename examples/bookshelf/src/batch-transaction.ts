/**
 * Atomic batches on the bookshelf's database: the requests an atomic batch makes run in its one
 * transaction, found through an AsyncLocalStorage (every query and transaction goes through it).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Database, Queryable } from './db.js'

/** The database whose queries use the batch's transaction when there is one, and the batch's `transaction` option. */
export interface AmbientTransactions {
  db: Database
  transaction<T>(run: () => Promise<T>): Promise<T>
}

/**
 * Wraps `db`: inside `transaction(run)`, `query` uses the batch's transaction and a nested
 * `transaction` becomes a savepoint (a route's own transaction inside an atomic batch).
 */
export function ambientTransactions(db: Database): AmbientTransactions {
  const current = new AsyncLocalStorage<Queryable>()
  let savepoints = 0
  return {
    db: {
      description: db.description,
      close: () => db.close(),
      query: <T>(text: string, params?: unknown[]) =>
        (current.getStore() ?? db).query<T>(text, params),
      transaction: async (work) => {
        const tx = current.getStore()
        if (tx === undefined) return db.transaction(work)
        const name = `route_${++savepoints}`
        await tx.query(`savepoint ${name}`)
        try {
          const result = await work(tx)
          await tx.query(`release savepoint ${name}`)
          return result
        } catch (error) {
          await tx.query(`rollback to savepoint ${name}`)
          throw error
        }
      },
    },
    transaction: (run) => db.transaction((tx) => current.run(tx, run)),
  }
}
