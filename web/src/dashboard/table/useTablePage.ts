import {
  type AsOf,
  type DashboardFilter,
  type PreviewAnswer,
  previewAnswerSchema,
  type TableComponent,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../auth/session.js';
import type { HistoryMode } from '../history-mode.js';
import { settledView, type TableView, tableViewQuery, useTableView } from './table-state.js';

type SetView = (update: (view: TableView) => TableView, mode?: HistoryMode) => void;

/**
 * The view of a table (its header filters, order, columns and page) and the change that sets it:
 * the reader's, kept in the address bar (table-state.ts); in the editor, the cell's own. New
 * filters or another order start again at the first page.
 */
export function useTableViewState(componentId: string, inAddress: boolean): [TableView, SetView] {
  const [addressed, changeAddressed] = useTableView(componentId);
  const [own, setOwn] = useState<TableView>({});
  const setOwnView: SetView = (update) => setOwn((current) => settledView(current, update(current)));
  return inAddress ? [addressed, changeAddressed] : [own, setOwnView];
}

/**
 * The page shown (the view's) and its rows. The first page in the table's own order, unfiltered by
 * its header, comes with the rest of the dashboard's data (`POST /data`); other pages, orders and
 * header filters from the rows route, under the same dashboard filters and version. A page past
 * the last (a link from before the table shrank) gives way to the last. The table's own selection
 * is not among the filters sent: it narrows the other components, not the table (docs/dashboards.md
 * "Tables").
 */
export function useTablePage(
  dashboardId: string,
  component: TableComponent,
  firstPage: PreviewAnswer,
  scope: { filters: readonly DashboardFilter[]; asOf: AsOf | null; view: TableView; setView: SetView },
) {
  const api = useApi();
  const others = scope.filters.filter((filter) => filter.component_id !== component.component_id);
  const filtersParam = others.length === 0 ? undefined : JSON.stringify(others);
  const { asOf, setView } = scope;
  const asOfParam = asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf);
  const viewQuery = tableViewQuery(scope.view);
  const page = scope.view.page ?? 1;
  const setPage = (next: number, mode: HistoryMode = 'push') =>
    setView((current) => ({ ...current, page: next }), mode);
  const pageSize = component.page_size;
  const ownFirstPage = page === 1 && Object.keys(viewQuery).length === 0;
  const rows = useQuery({
    queryKey: ['dashboard-rows', dashboardId, component.component_id, page, viewQuery, filtersParam, asOfParam],
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/components/${component.component_id}/rows`, previewAnswerSchema, {
        // Without `sort`, the table's own order.
        query: { limit: pageSize, skip: (page - 1) * pageSize, filters: filtersParam, as_of: asOfParam, ...viewQuery },
        signal,
      }),
    placeholderData: keepPreviousData,
    enabled: !ownFirstPage,
  });
  const answer = ownFirstPage ? firstPage : rows.data;
  const settled = rows.isSuccess && !rows.isPlaceholderData;
  const last = settled ? Math.max(1, Math.ceil(rows.data.total / pageSize)) : page;
  useEffect(() => {
    if (page > last) setView((current) => ({ ...current, page: last }), 'replace');
  }, [page, last, setView]);
  return { page, setPage, rows, answer, ownFirstPage };
}

export type ShownPage = ReturnType<typeof useTablePage>;
