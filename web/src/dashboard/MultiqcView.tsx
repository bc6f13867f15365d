import { Group, Pagination, Stack, Table, Text, useComputedColorScheme } from '@mantine/core';
import {
  type DashboardFilterValue,
  type MultiqcCellBar,
  type MultiqcComponent,
  type MultiqcData,
  type MultiqcTableData,
  multiqcCellBars,
  multiqcDescription,
  multiqcOption,
  toggleCategory,
} from '@service/common';
import { type EChartsType, init } from '@service/common/echarts-registry';
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatMeasure } from '../format/number.js';
import { CHART_RENDERED_EVENT } from './FigureView.js';
import { useInSight } from './useInSight.js';

export interface MultiqcViewProps {
  component: MultiqcComponent;
  data: MultiqcData;
  /** A sample clicked (a bar, a line, a heatmap row): the other components narrow to it; null clears it. */
  onFilter?: (value: DashboardFilterValue | null) => void;
  filterValue?: DashboardFilterValue | null;
}

/**
 * A MultiQC plot (docs/dashboards.md, "MultiQC plots"): a chart drawn by ECharts from common's
 * option, or MultiQC's table as a table. Clicking a sample filters the rest of the dashboard.
 * `data-chart-state` becomes `rendered` when ECharts has drawn; `data-samples` counts the samples.
 */
export function MultiqcView({ component, data, onFilter, filterValue }: MultiqcViewProps) {
  if (data.plot_type === 'table') return <MultiqcTable data={data} title={component.title ?? data.title} />;
  return <MultiqcChart component={component} data={data} onFilter={onFilter} filterValue={filterValue} />;
}

function MultiqcChart({ component, data, onFilter, filterValue }: MultiqcViewProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | null>(null);
  const theme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const option = useMemo(() => multiqcOption(component, data, { theme }), [component, data, theme]);
  const latest = useRef({ data, onFilter, filterValue });
  latest.current = { data, onFilter, filterValue };

  useEffect(() => {
    const target = element.current;
    if (target === null) return;
    const instance = init(target, null, { renderer: 'canvas' });
    chart.current = instance;
    instance.on('finished', () => {
      target.dataset.chartState = 'rendered';
      target.dispatchEvent(new CustomEvent(CHART_RENDERED_EVENT, { bubbles: true }));
    });
    instance.on('click', (params) => {
      const { data, onFilter, filterValue } = latest.current;
      const sample = clickedSample(data, params as { seriesName?: string; dataIndex?: number; value?: unknown });
      if (sample !== null) onFilter?.(toggleCategory(filterValue, sample));
    });
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(target);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  const visible = useInSight(element);
  useEffect(() => {
    const target = element.current;
    if (chart.current === null || target === null || option === null) return;
    // A plot out of sight is drawn when scrolled to: a filter change redraws what is seen first.
    if (!visible) {
      target.dataset.chartState = 'waiting';
      return;
    }
    target.dataset.chartState = 'drawing';
    chart.current.setOption(option, { notMerge: true });
  }, [option, visible]);

  return (
    <div
      ref={element}
      role="img"
      aria-label={multiqcDescription(component, data)}
      data-plot-type={data.plot_type}
      data-samples={data.samples.length}
      style={{ width: '100%', height: '100%', minHeight: 200 }}
    />
  );
}

/** The sample a click on a MultiQC chart names: a bar's row, a line's series, a heatmap's row. */
function clickedSample(data: MultiqcData, params: { seriesName?: string; dataIndex?: number; value?: unknown }) {
  switch (data.plot_type) {
    case 'bar':
      return data.samples[params.dataIndex ?? -1] ?? null;
    case 'line':
    case 'scatter':
      return params.seriesName ?? null;
    case 'heatmap': {
      const y = Array.isArray(params.value) ? Number(params.value[1]) : Number.NaN;
      return data.samples.includes(data.y[y] ?? '') ? (data.y[y] ?? null) : null;
    }
    case 'box':
    case 'violin':
      return data.boxes[params.dataIndex ?? -1]?.name ?? null;
    case 'table':
      return null;
  }
}

/** MultiQC's table (general statistics or a module's own): a row per sample, MultiQC's column titles and colour bars. */
function MultiqcTable({ data, title }: { data: MultiqcTableData; title: string }) {
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <Text fw={700} size="sm" pr={28}>
        {title}
      </Text>
      {data.rows.length === 0 ? (
        <Text c="dimmed" data-plot-type="table" data-samples={0}>
          No samples match the filters.
        </Text>
      ) : (
        <TableBody data={data} />
      )}
    </Stack>
  );
}

/** Rows of a MultiQC table shown at once: 2,000 samples page through rather than fill the DOM. */
const TABLE_PAGE_ROWS = 100;

function TableBody({ data }: { data: MultiqcTableData }) {
  const bars = useMemo(() => multiqcCellBars(data), [data]);
  const [page, setPage] = useState(1);
  const pages = Math.ceil(data.rows.length / TABLE_PAGE_ROWS);
  const shown = Math.min(page, pages);
  const rows = data.rows.slice((shown - 1) * TABLE_PAGE_ROWS, shown * TABLE_PAGE_ROWS);
  return (
    <>
      <div
        style={{ minHeight: 0, flex: 1, overflow: 'auto' }}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a keyboard scrolls it only if it takes the focus; its cells hold nothing else that could (axe's scrollable-region-focusable).
        tabIndex={0}
        data-plot-type="table"
        data-samples={data.rows.length}
      >
        <TableRows data={data} rows={rows} bars={bars} />
      </div>
      {pages > 1 && (
        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            Rows {(shown - 1) * TABLE_PAGE_ROWS + 1}–{(shown - 1) * TABLE_PAGE_ROWS + rows.length} of{' '}
            {data.rows.length.toLocaleString('en-US')}
          </Text>
          <Pagination size="sm" total={pages} value={shown} onChange={setPage} aria-label={`Pages of ${data.title}`} />
        </Group>
      )}
    </>
  );
}

function TableRows({
  data,
  rows,
  bars,
}: {
  data: MultiqcTableData;
  rows: MultiqcTableData['rows'];
  bars: ReturnType<typeof multiqcCellBars>;
}) {
  return (
    <Table striped highlightOnHover stickyHeader fz="sm" aria-label={data.title}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Sample</Table.Th>
          {data.columns.map((column) => (
            <Table.Th key={column.key} scope="col" title={column.description ?? undefined}>
              {column.title}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.sample}>
            <Table.Th scope="row" fw={500}>
              {row.sample}
            </Table.Th>
            {data.columns.map((column) => {
              const value = row.values[column.key];
              const bar = typeof value === 'number' ? (bars.get(column.key)?.(value) ?? null) : null;
              return (
                <Table.Td
                  key={column.key}
                  ta={typeof value === 'number' ? 'right' : undefined}
                  style={barStyle(bar)}
                  data-bar={bar === null ? undefined : `${bar.percent}% ${bar.color}`}
                >
                  {typeof value === 'number' ? `${formatMeasure(value)}${column.suffix ?? ''}` : (value ?? '')}
                </Table.Td>
              );
            })}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * MultiQC's bar behind a number: as wide as the value's place in the column's range, in the
 * column scale's colour, half transparent so the number stays readable in either theme.
 */
function barStyle(bar: MultiqcCellBar | null) {
  if (bar === null) return undefined;
  const color = `color-mix(in srgb, ${bar.color} 45%, transparent)`;
  return { backgroundImage: `linear-gradient(to right, ${color} ${bar.percent}%, transparent ${bar.percent}%)` };
}
