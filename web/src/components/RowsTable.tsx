import { Table, Text, UnstyledButton } from '@mantine/core';
import type { PreviewAnswer, QueryRow, SortKey, TableColumn } from '@service/common';
import type { CSSProperties, ReactNode } from 'react';
import { formatCell } from '../explorer/format.js';

const ARROWS = { asc: '▲', desc: '▼' } as const;

/**
 * The body of a table answer: one row per row, cells in monospace, long values cut. Each value is
 * a plain span styled by `.table-cell-value` (styles.css) rather than Mantine's `Text`: a page of
 * rows has hundreds of cells, and a `Text` computes its style props on every render, which made
 * up much of the explorer's first render (docs/performance.md, `web`).
 */
export function TableRows({
  columns,
  rows,
  painters,
  leading,
}: Pick<PreviewAnswer, 'columns' | 'rows'> & { painters?: CellPainters; leading?: LeadingColumn }) {
  return (
    <Table.Tbody>
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: table rows have no identity of their own.
        <Table.Tr key={index}>
          {leading && <Table.Td>{leading.cell(row)}</Table.Td>}
          {columns.map((column) => {
            const paint = painters?.get(column.name)?.(row[column.name]);
            return (
              <Table.Td key={column.name} style={paint?.style} data-scale-step={paint?.step}>
                <span className="table-cell-value">{formatCell(row[column.name])}</span>
              </Table.Td>
            );
          })}
        </Table.Tr>
      ))}
    </Table.Tbody>
  );
}

/** A first column of controls (a dashboard table's row checkboxes): its header and each row's cell. */
export interface LeadingColumn {
  header: ReactNode;
  cell: (row: QueryRow) => ReactNode;
}

/** Per coloured column, the colour of a cell from its value (a dashboard table's colour scales). */
export type CellPainters = ReadonlyMap<string, (value: unknown) => { style: CSSProperties; step: number } | undefined>;

/**
 * Rows of a table answer (preview, dashboard table) with typed column headers. With `onSort`, each
 * header is a button that asks for that column's order, and the sorted column shows its direction.
 * `headerControls` adds a column's controls after its name (a dashboard table's filter button).
 */
export function RowsTable({
  answer,
  label,
  maxHeight,
  sort,
  onSort,
  painters,
  headerControls,
  leading,
}: {
  answer: Pick<PreviewAnswer, 'columns' | 'rows'>;
  painters?: CellPainters;
  headerControls?: (column: TableColumn) => ReactNode;
  leading?: LeadingColumn;
  label: string;
  maxHeight?: number;
  sort?: SortKey | null;
  onSort?: (column: string) => void;
}) {
  const { columns, rows } = answer;
  return (
    <Table.ScrollContainer minWidth={columns.length * 120} {...(maxHeight === undefined ? {} : { maxHeight })}>
      <Table striped withTableBorder withColumnBorders stickyHeader aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {leading && <Table.Th style={{ width: 1 }}>{leading.header}</Table.Th>}
            {columns.map((column) => (
              <ColumnHeader
                key={column.name}
                column={column}
                direction={sort?.column === column.name ? sort.direction : null}
                onSort={onSort}
                controls={headerControls?.(column)}
              />
            ))}
          </Table.Tr>
        </Table.Thead>
        <TableRows
          columns={columns}
          rows={rows}
          {...(painters === undefined ? {} : { painters })}
          {...(leading === undefined ? {} : { leading })}
        />
      </Table>
    </Table.ScrollContainer>
  );
}

/** A column's header: its name (a sort button with `onSort`), its type, its order's arrow, its controls. */
function ColumnHeader({
  column,
  direction,
  onSort,
  controls,
}: {
  column: TableColumn;
  direction: SortKey['direction'] | null;
  onSort: ((column: string) => void) | undefined;
  controls: ReactNode;
}) {
  const arrow = direction && (
    <Text span size="xs" ml={4} aria-hidden="true">
      {ARROWS[direction]}
    </Text>
  );
  // Outside the sort button, whose name ("Sort by …") must hold all the text it shows.
  const type = (
    <Text span size="xs" c="dimmed" ml={4}>
      {column.type}
    </Text>
  );
  return (
    <Table.Th
      style={{ whiteSpace: 'nowrap' }}
      title={column.description ?? column.type}
      aria-sort={direction === null ? undefined : direction === 'asc' ? 'ascending' : 'descending'}
    >
      {onSort ? (
        <>
          <UnstyledButton onClick={() => onSort(column.name)} aria-label={`Sort by ${column.name}`} fw={700}>
            {column.name}
            {arrow}
          </UnstyledButton>
          {type}
          {controls}
        </>
      ) : (
        <>
          {column.name}
          {type}
          {arrow}
        </>
      )}
    </Table.Th>
  );
}
