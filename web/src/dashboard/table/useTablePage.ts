import {
  type AsOf,
  type DashboardFilter,
  type PreviewAnswer,
  previewAnswerSchema,
  type TableComponent,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../auth/session.js';
import { type TableView, tableViewQuery, useTableView } from './table-state.js';

/**
 * The view of a table (its header filters, order and columns) and the change that sets it: the
 * reader's, kept in the address bar (table-state.ts); in the editor, the cell's own.
 */
export function useTableViewState(
  componentId: string,
  inAddress: boolean,
): [TableView, (update: (view: TableView) => TableView) => void] {
  const [addressed, changeAddressed] = useTableView(componentId);
  const [own, setOwn] = useState<TableView>({});
  return inAddress ? [addressed, (update) => changeAddressed(update)] : [own, setOwn];
}

/**
 * The page shown and its rows. The first page in the table's own order, unfiltered by its header,
 * comes with the rest of the dashboard's data (`POST /data`); other pages, orders and header
 * filters from the rows route, under the same dashboard filters and version. New filters, order
 * or version start again at the first page. The table's own selection is not among the filters
 * sent: it narrows the other components, not the table (docs/dashboards.md "Tables").
 */
export function useTablePage(
  dashboardId: string,
  component: TableComponent,
  firstPage: PreviewAnswer,
  scope: { filters: readonly DashboardFilter[]; asOf: AsOf | null; view: TableView },
) {
  const api = useApi();
  const others = scope.filters.filter((filter) => filter.component_id !== component.component_id);
  const filtersParam = others.length === 0 ? undefined : JSON.stringify(others);
  const { asOf } = scope;
  const asOfParam = asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf);
  const viewQuery = tableViewQuery(scope.view);
  const [page, setPage] = useState(1);
  const shownFor = JSON.stringify([filtersParam, asOfParam, viewQuery]);
  const [pageFor, setPageFor] = useState(shownFor);
  if (pageFor !== shownFor) {
    setPageFor(shownFor);
    setPage(1);
  }
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
  return { page, setPage, rows, answer, ownFirstPage };
}

export type ShownPage = ReturnType<typeof useTablePage>;
