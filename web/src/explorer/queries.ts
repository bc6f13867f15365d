import { previewAnswerSchema } from '@service/common';
import { keepPreviousData, type QueryClient, queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../api/client.js';
import { JUST_FETCHED_MS } from '../api/freshness.js';
import { PREVIEW_PAGE_SIZE, previewGet } from '../api/wire.js';
import { formatFilters } from './row-filter.js';
import { formatSort } from './sort.js';
import type { ExplorerState } from './url-state.js';

/** The first element of the query keys of everything read from a collection's table (the second is the collection id). */
export const TABLE_QUERY_KEYS = ['preview', 'summary', 'values', 'versions'] as const;

/** Refreshes what the explorer shows of one collection's table (every collection's without an id), after a write. */
export function invalidateTableQueries(queryClient: QueryClient, collectionId?: string): void {
  for (const key of TABLE_QUERY_KEYS) {
    void queryClient.invalidateQueries({ queryKey: collectionId === undefined ? [key] : [key, collectionId] });
  }
}

export { PREVIEW_PAGE_SIZE };

/**
 * The preview's query: one page of rows, sorted and at a version as the address bar says. Shared
 * by the explorer and the project page, which starts it before the explorer's code has arrived.
 */
export function previewQuery(
  api: ApiClient,
  collectionId: string,
  {
    page,
    sort,
    version,
    filters = [],
  }: { page: number; sort: ExplorerState['sort']; version: number | null; filters?: ExplorerState['filters'] },
) {
  const sortText = formatSort(sort);
  const filtersText = formatFilters(filters);
  return queryOptions({
    queryKey: ['preview', collectionId, page, sortText ?? '', version, filtersText ?? ''],
    queryFn: ({ signal }) =>
      api.get(
        previewGet(collectionId, { page, sort: sortText, version, filters: filtersText }),
        previewAnswerSchema,
        signal,
      ),
    placeholderData: keepPreviousData,
    // Writes to the table refresh it (invalidateTableQueries).
    staleTime: JUST_FETCHED_MS,
  });
}
