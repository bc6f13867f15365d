import type { SelectQueryBuilder } from 'kysely';

export interface PageQuery {
  limit: number;
  skip: number;
}

export interface Page<T> extends PageQuery {
  items: T[];
  total: number;
}

/**
 * One page of a filtered query and the total it pages through. `rows` adds the selection and
 * order to the filter; the count runs over the filter alone, alongside the page.
 */
export async function pageRows<DB, TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  rows: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  page: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const [items, count] = await Promise.all([
    rows(filtered).limit(page.limit).offset(page.skip).execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number((count as { total: number | string }).total) };
}

/** One page in the list shape every route answers (`{items, total, limit, skip}`). */
export async function paginate<DB, TB extends keyof DB, Row, T>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  rows: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  page: PageQuery,
  present: (row: Row) => T,
): Promise<Page<T>> {
  const found = await pageRows(filtered, rows, page);
  return { items: found.rows.map(present), total: found.total, limit: page.limit, skip: page.skip };
}
