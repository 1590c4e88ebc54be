/**
 * The SQL of a `QUERY /v1/books` search (and of the GET list's filters): each condition with its
 * values as parameters. Apart from the query language's schema, so the worker, which reads books
 * through the repository, loads neither TypeBox schemas nor restwell.
 */
import type { Where } from './book-search.js'

/** An SQL condition over `books` and its parameters, numbered from `$<first>`. */
export interface Condition {
  sql: string[]
  params: unknown[]
}

type Operator = 'eq' | 'contains' | 'in' | 'gt' | 'gte' | 'lt' | 'lte'
const COMPARISONS: Readonly<Record<'eq' | 'gt' | 'gte' | 'lt' | 'lte', string>> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
}

/** `{ eq: value }` for a bare value; the operators as they are otherwise. */
export function operatorsOf(condition: unknown): [Operator, unknown][] {
  if (typeof condition !== 'object' || condition === null) return [['eq', condition]]
  return Object.entries(condition) as [Operator, unknown][]
}

/** The SQL expression each field is compared as. */
const COLUMNS: Readonly<Record<keyof Where, string>> = {
  title: 'lower(title)',
  author: 'lower(name)',
  authorId: 'author_id',
  status: 'status',
  year: 'extract(year from published_at)::int',
  publishedAt: 'published_at',
}

/** The conditions of `where`, each value a parameter; `params` already holds the ones before. */
export function searchCondition(where: Where, params: unknown[]): string[] {
  const out: string[] = []
  const param = (value: unknown, cast = ''): string => {
    params.push(value)
    return `$${params.length}${cast}`
  }
  for (const [field, condition] of Object.entries(where) as [keyof Where, unknown][]) {
    const column = COLUMNS[field]
    const text = field === 'title' || field === 'author'
    const cast = field === 'publishedAt' ? '::date' : ''
    const terms = operatorsOf(condition).map(([operator, value]) => {
      if (operator === 'contains') return `strpos(${column}, lower(${param(value)})) > 0`
      if (operator === 'in') {
        const list = (value as unknown[]).map((one) => param(one))
        return `${column} in (${list.join(', ')})`
      }
      const right = text ? `lower(${param(value)})` : param(value, cast)
      return `${column} ${COMPARISONS[operator]} ${right}`
    })
    // The author's name is the authors table's: the books of the authors that match.
    out.push(
      field === 'author'
        ? `author_id in (select id from authors where ${terms.join(' and ')})`
        : terms.join(' and '),
    )
  }
  return out
}
