import { Alert, Group, Loader, Pagination, Stack, Text } from '@mantine/core';
import {
  type AsOf,
  type ColorRanges,
  type DashboardFilter,
  type PreviewAnswer,
  previewAnswerSchema,
  type SortKey,
  scaleStep,
  scaleSteps,
  type TableComponent,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { type CellPainters, RowsTable } from '../components/RowsTable.js';
import { formatSort, nextSort } from '../explorer/sort.js';
import { formatCount } from '../format/number.js';

interface TableViewProps {
  dashboardId: string;
  component: TableComponent;
  firstPage: PreviewAnswer;
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  /** The dashboard's data for new filters is on its way. */
  updating: boolean;
}

/**
 * A table component's rows. Its first page in its own order comes with the rest of the dashboard's
 * data (`POST /data`); other pages and orders from the rows route, under the same filters and
 * version. New filters or another version start again at the first page.
 */
export function TableView({ dashboardId, component, firstPage, filters, asOf, updating }: TableViewProps) {
  const shown = useTablePage(dashboardId, component, firstPage, filters, asOf);
  const { rows, answer, ownFirstPage } = shown;
  const label = component.title || 'Table';
  if (!ownFirstPage && rows.isError) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        {errorMessage(rows.error)}
      </Alert>
    );
  }
  if (answer === undefined) return <Loader size="sm" role="status" aria-label={`Loading ${label}`} />;
  if (answer.columns.length === 0) return <Text c="dimmed">No data yet at this time.</Text>;
  return (
    <TablePage
      component={component}
      answer={answer}
      firstPage={firstPage}
      shown={shown}
      label={label}
      updating={updating || (!ownFirstPage && rows.isFetching)}
    />
  );
}

/** The page and order shown, and their rows: the first page from `POST /data`, others from the rows route. */
function useTablePage(
  dashboardId: string,
  component: TableComponent,
  firstPage: PreviewAnswer,
  filters: readonly DashboardFilter[],
  asOf: AsOf | null,
) {
  const api = useApi();
  const filtersParam = filters.length === 0 ? undefined : JSON.stringify(filters);
  const asOfParam = asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf);
  const [page, setPage] = useState(1);
  // null: the component's own default order.
  const [sort, setSort] = useState<SortKey[] | null>(null);
  const view = `${filtersParam} ${asOfParam}`;
  const [shownFor, setShownFor] = useState(view);
  if (shownFor !== view) {
    setShownFor(view);
    setPage(1);
  }
  const pageSize = component.page_size;
  const ownFirstPage = page === 1 && sort === null;
  const rows = useQuery({
    queryKey: ['dashboard-rows', dashboardId, component.component_id, page, sort, filtersParam, asOfParam],
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/components/${component.component_id}/rows`, previewAnswerSchema, {
        query: {
          limit: pageSize,
          skip: (page - 1) * pageSize,
          // An empty list asks for the component's default order too.
          sort: formatSort(sort ?? []) ?? undefined,
          filters: filtersParam,
          as_of: asOfParam,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
    enabled: !ownFirstPage,
  });
  const answer = ownFirstPage ? firstPage : rows.data;
  return { page, setPage, sort, setSort, rows, answer, ownFirstPage };
}

type ShownPage = ReturnType<typeof useTablePage>;

/** A page of rows: the row count, the rows with sortable headers, and the page picker. */
function TablePage({
  component,
  answer,
  firstPage,
  shown,
  label,
  updating,
}: {
  component: TableComponent;
  answer: PreviewAnswer;
  firstPage: PreviewAnswer;
  shown: ShownPage;
  label: string;
  updating: boolean;
}) {
  const { page, setPage, sort, setSort } = shown;
  const pages = Math.max(1, Math.ceil(answer.total / component.page_size));
  // Every page's colours come from the first page's ranges: the whole table's, the same on each.
  const painters = cellPainters(component.color_scales, answer.color_ranges ?? firstPage.color_ranges);
  const shownSort = sort ?? component.sort;
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {formatCount(answer.total)} rows
        </Text>
        {updating && <Loader size="xs" role="status" aria-label={`Updating ${label}`} />}
      </Group>
      <div style={{ minHeight: 0, flex: 1, overflow: 'auto' }}>
        <RowsTable
          answer={answer}
          label={label}
          painters={painters}
          sort={shownSort[0] ?? null}
          onSort={(column) => {
            // Ascending, descending, then back to the component's default order.
            const next = nextSort(sort ?? [], column, false);
            setSort(next.length === 0 ? null : next);
            setPage(1);
          }}
        />
      </div>
      {pages > 1 && (
        <Pagination size="sm" total={pages} value={page} onChange={setPage} aria-label={`${label} pages`} />
      )}
    </Stack>
  );
}

/** A painter per coloured column: the scale's step of the cell's value in the column's whole range. */
function cellPainters(
  scales: TableComponent['color_scales'],
  ranges: ColorRanges | undefined,
): CellPainters | undefined {
  if (scales === undefined || ranges === undefined) return undefined;
  return new Map(
    scales.map((scale) => {
      const steps = scaleSteps(scale);
      const paint = (value: unknown) => {
        const step = scaleStep(value, ranges[scale.column]);
        const colors = step === null ? undefined : steps[step];
        return step === null || colors === undefined ? undefined : { style: { ...colors }, step };
      };
      return [scale.column, paint] as const;
    }),
  );
}
