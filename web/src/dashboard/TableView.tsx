import { Alert, Loader, Stack, Text } from '@mantine/core';
import {
  type AsOf,
  type ColorRanges,
  type DashboardFilter,
  type PreviewAnswer,
  scaleStep,
  scaleSteps,
  type TableColumn,
  type TableComponent,
} from '@service/common';
import type { ReactNode } from 'react';
import { errorMessage } from '../api/client.js';
import { type CellPainters, RowsTable } from '../components/RowsTable.js';
import { nextSort } from '../explorer/sort.js';
import { PagePicker } from './Paging.js';
import { ColumnFilterButton, filterForm } from './table/ColumnFilter.js';
import { shownColumns } from './table/ColumnsMenu.js';
import { selectionColumn, useLatestSelection } from './table/selection.js';
import { TableBar } from './table/TableBar.js';
import { filterOf, type TableReading, type TableState, withColumnFilter } from './table/table-state.js';
import { type ShownPage, useTablePage, useTableViewState } from './table/useTablePage.js';

interface TableViewProps {
  dashboardId: string;
  component: TableComponent;
  firstPage: PreviewAnswer;
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  /** The dashboard's data for new filters is on its way. */
  updating: boolean;
  reading?: TableReading | undefined;
}

/**
 * A table component's rows (docs/dashboards.md "Tables"), paged and sorted; for a reader also
 * filtered by its header, its columns shown and ordered, and its rows selected to filter the other
 * components. The reader's header filters, order and columns are in the address bar (table-state.ts).
 */
export function TableView({ dashboardId, component, firstPage, filters, asOf, updating, reading }: TableViewProps) {
  const [view, setView] = useTableViewState(component.component_id, reading !== undefined);
  const shown = useTablePage(dashboardId, component, firstPage, { filters, asOf, view, setView });
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
      table={{ view, setView, reading }}
      label={label}
      updating={updating || (!ownFirstPage && rows.isFetching)}
    />
  );
}

/** A page of rows: the bar above it, the rows with their headers' sort and filter buttons, the page picker. */
function TablePage({
  component,
  answer,
  firstPage,
  shown,
  table,
  label,
  updating,
}: {
  component: TableComponent;
  answer: PreviewAnswer;
  firstPage: PreviewAnswer;
  shown: ShownPage;
  table: TableState;
  label: string;
  updating: boolean;
}) {
  const { page, setPage } = shown;
  const { view, setView, reading } = table;
  // Every page's colours come from the first page's ranges: the whole table's, the same on each.
  const painters = cellPainters(component.color_scales, answer.color_ranges ?? firstPage.color_ranges);
  const values = answer.column_values ?? firstPage.column_values;
  const columns = reading === undefined ? answer.columns : shownColumns(answer.columns, view.columns);
  const selection = useLatestSelection(reading?.selected, reading?.onSelect);
  const leading = reading && selectionColumn(answer, label, selection);
  const shownSort = view.sort ?? component.sort;
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <TableBar label={label} total={answer.total} all={answer.columns} table={table} updating={updating} />
      <div style={{ minHeight: 0, flex: 1, overflow: 'auto' }}>
        <RowsTable
          answer={{ columns, rows: answer.rows }}
          label={label}
          painters={painters}
          sort={shownSort[0] ?? null}
          onSort={(column) =>
            setView((current) => {
              // Ascending, descending, then back to the component's default order.
              const next = nextSort(current.sort ?? [], column, false);
              return { ...current, sort: next.length === 0 ? undefined : next };
            })
          }
          {...(leading === undefined ? {} : { leading })}
          {...(reading === undefined ? {} : { headerControls: filterButtons(table, values) })}
        />
      </div>
      <PagePicker
        label={label}
        total={answer.total}
        pageSize={component.page_size}
        page={page}
        onChange={(next) => setPage(next)}
      />
    </Stack>
  );
}

/** Each column's filter button, of the form its type and values take (none for other types). */
function filterButtons(
  { view, setView }: TableState,
  values: PreviewAnswer['column_values'],
): (column: TableColumn) => ReactNode {
  return (column) => {
    const form = filterForm(column, values?.[column.name]);
    if (form === null) return null;
    return (
      <ColumnFilterButton
        column={column}
        form={form}
        values={values?.[column.name]}
        filter={filterOf(view, column.name)}
        onChange={(filter) => setView((current) => withColumnFilter(current, column.name, filter))}
      />
    );
  };
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
