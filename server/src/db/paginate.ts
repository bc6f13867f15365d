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
 * One page of a filtered query plus the total it pages through, in the list shape every route
 * answers (`{items, total, limit, skip}`). `rows` adds the selection and order to the filter.
 */
export async function paginate<DB, TB extends keyof DB, Row, T>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  rows: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  page: PageQuery,
  present: (row: Row) => T,
): Promise<Page<T>> {
  const [items, count] = await Promise.all([
    rows(filtered).limit(page.limit).offset(page.skip).execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: items.map(present),
    total: Number((count as { total: number | string }).total),
    limit: page.limit,
    skip: page.skip,
  };
}
