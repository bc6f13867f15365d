import { Alert, Card, Group, Loader, Text, Title } from '@mantine/core';
import {
  type AsOf,
  type ColorAssignment,
  cardDataSchema,
  componentErrorSchema,
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterValue,
  figureDataSchema,
  type LayoutItem,
  multiqcDataSchema,
  previewAnswerSchema,
  readsCollection,
} from '@service/common';
import { memo, type ReactNode } from 'react';
import { errorMessage } from '../api/client.js';
import { Markdown } from '../components/Markdown.js';
import { CardView } from './CardView.js';
import { ContigPicker } from './ContigPicker.js';
import { componentLabel } from './chips.js';
import { ComponentMenu, type ShownView } from './export/ComponentMenu.js';
import type { HistoryMode } from './filter-state.js';
import { GalleryView } from './GalleryView.js';
import { InteractiveView } from './InteractiveView.js';
import { gridCellStyle } from './layout.js';
import { FigureView, MultiqcView } from './lazy.js';
import { parseOnce } from './parse-once.js';
import { TableView } from './TableView.js';
import type { TableReading } from './table/table-state.js';

export interface CellData {
  /** The component's latest data (possibly for the previous filters while `waiting`). */
  data: unknown;
  waiting: boolean;
  /** The dashboard's data request failed as a whole. */
  error: unknown;
}

export interface CellFilters {
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  /** The key of the filters being shown (`data-drawn-key` once this cell has drawn them). */
  viewKey: string;
  onFilter: (componentId: string, value: DashboardFilterValue | null, mode?: HistoryMode) => void;
  /** A reader's choice of the contig a coverage track draws (absent in the builder: the track's own). */
  onContig?: (componentId: string, contig: string | null, mode?: HistoryMode) => void;
  /** The dashboard's colour per value (absent in the builder's preview: each chart its own order). */
  colors?: ColorAssignment | undefined;
  /** A reader's dashboard: tables offer header filters, columns and row selection (not in the editor). */
  reader?: boolean;
}

function cellState(component: DashboardComponent, cell: CellData): 'loading' | 'ready' | 'error' {
  if (!readsCollection(component)) return 'ready';
  if (cell.error !== null) return 'error';
  if (cell.data !== undefined && componentErrorSchema.safeParse(cell.data).success) return 'error';
  return cell.waiting ? 'loading' : 'ready';
}

/** A component that reads a collection (not text, not a section). */
type DataComponent = Exclude<DashboardComponent, { type: 'section' | 'text' }>;

/** The rows of the table a figure's answer was computed from (`total_rows`), when it has them. */
function totalRowsOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null || !('total_rows' in data)) return undefined;
  return typeof data.total_rows === 'number' ? data.total_rows : undefined;
}

/** A cell's content: its text, or its data drawn, or why there is none yet. */
export function CellBody({
  dashboardId,
  component,
  cell,
  view,
}: {
  dashboardId: string;
  component: DashboardComponent;
  cell: CellData;
  view: CellFilters;
}): ReactNode {
  if (component.type === 'section' || component.type === 'text') return <WrittenBody component={component} />;
  const label = componentLabel(component);
  const { data } = cell;
  const problem = cellProblem(label, cell);
  if (problem !== null || data === undefined) return problem;
  if (component.type === 'table' || component.type === 'image') {
    return <PagedBody dashboardId={dashboardId} component={component} data={data} cell={cell} view={view} />;
  }
  return <ChartBody component={component} data={data} view={view} />;
}

/** A section's line under its title in the editor, or a text's markdown. */
function WrittenBody({ component }: { component: Extract<DashboardComponent, { type: 'section' | 'text' }> }) {
  if (component.type === 'section') {
    // Drawn as a header row by the view (sections.tsx); in the editor, its line under the title.
    return (
      <Text size="sm" c="dimmed" lineClamp={1}>
        {component.description ?? 'Holds the components below it, down to the next section.'}
      </Text>
    );
  }
  return (
    <div style={{ overflow: 'auto' }}>
      <Markdown text={component.markdown} />
    </div>
  );
}

/** What to show instead of the data (the request failed, the component failed, nothing yet), or null. */
function cellProblem(label: string, cell: CellData): ReactNode {
  if (cell.error !== null) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        {errorMessage(cell.error)}
      </Alert>
    );
  }
  if (cell.data === undefined) {
    return cell.waiting ? (
      <Loader size="sm" role="status" aria-label={`Loading ${label}`} />
    ) : (
      <Text c="dimmed">No data yet.</Text>
    );
  }
  const failed = componentErrorSchema.safeParse(cell.data);
  if (!failed.success) return null;
  const { message, field } = failed.data.error;
  return (
    <Alert color="red" role="alert" title={`Could not load ${label}`}>
      {field === null ? message : `${message} (${field})`}
    </Alert>
  );
}

/** A table's or a gallery's first page, paged further by the component itself. */
function PagedBody({
  dashboardId,
  component,
  data,
  cell,
  view,
}: {
  dashboardId: string;
  component: Extract<DashboardComponent, { type: 'table' | 'image' }>;
  data: unknown;
  cell: CellData;
  view: CellFilters;
}) {
  const page = parseOnce(previewAnswerSchema, data);
  if (page === undefined) return <Text c="dimmed">No data yet.</Text>;
  if (component.type === 'table') {
    return (
      <TableView
        dashboardId={dashboardId}
        component={component}
        firstPage={page}
        filters={view.filters}
        asOf={view.asOf}
        updating={cell.waiting}
        reading={view.reader ? tableReading(component.component_id, view) : undefined}
      />
    );
  }
  return (
    <GalleryView
      source={{ dashboardId, preview: view.viewKey === 'preview' }}
      component={component}
      firstPage={page}
      filters={view.filters}
      asOf={view.asOf}
      updating={cell.waiting}
    />
  );
}

/** A reader's selection of a table's rows: its own filter of the dashboard. */
function tableReading(componentId: string, view: CellFilters): TableReading {
  return {
    selected: view.filters.find((filter) => filter.component_id === componentId)?.value,
    onSelect: (value) => view.onFilter(componentId, value),
  };
}

/** A chart, widget or card, with its filter value and a way to set it. */
function ChartBody({
  component,
  data,
  view,
}: {
  component: Exclude<DataComponent, { type: 'table' | 'image' }>;
  data: unknown;
  view: CellFilters;
}): ReactNode {
  const filterValue = view.filters.find((filter) => filter.component_id === component.component_id)?.value;
  return (
    <DrawnBody
      component={component}
      data={data}
      filterValue={filterValue}
      onFilter={view.onFilter}
      onContig={view.onContig}
      colors={view.colors}
    />
  );
}

interface DrawnBodyProps {
  component: Exclude<DataComponent, { type: 'table' | 'image' }>;
  data: unknown;
  filterValue: DashboardFilterValue | undefined;
  onFilter: CellFilters['onFilter'];
  onContig: CellFilters['onContig'];
  colors: ColorAssignment | undefined;
}

/**
 * What a chart, widget or card draws, rendered again only when its data, its own filter or the
 * colours change: a filter change renders every cell (each waits for its new data), and the 18 of
 * 22 out of sight have nothing new to draw until scrolled to.
 */
const DrawnBody = memo(
  function DrawnBody({ component, data, filterValue, onFilter: onAnyFilter, onContig, colors }: DrawnBodyProps) {
    const onFilter = (value: DashboardFilterValue | null, mode?: HistoryMode) =>
      onAnyFilter(component.component_id, value, mode);
    switch (component.type) {
      case 'interactive':
        return <InteractiveView component={component} data={data} value={filterValue} onFilter={onFilter} />;
      case 'figure': {
        const figure = parseOnce(figureDataSchema, data);
        if (figure === undefined) return <Text c="dimmed">No data yet.</Text>;
        const chart = (
          <FigureView
            component={component}
            data={figure}
            filterValue={filterValue}
            onFilter={onFilter}
            colors={colors}
          />
        );
        if (onContig === undefined || figure.contigs === undefined) return chart;
        return (
          <>
            <ContigPicker
              component={component}
              data={figure}
              onContig={(contig, mode) => onContig(component.component_id, contig, mode)}
            />
            <div style={{ flex: 1, minHeight: 0 }}>{chart}</div>
          </>
        );
      }
      case 'card': {
        const card = parseOnce(cardDataSchema, data);
        if (card === undefined) return <Text c="dimmed">No data yet.</Text>;
        return <CardView component={component} data={card} />;
      }
      case 'multiqc': {
        const plot = parseOnce(multiqcDataSchema, data);
        if (plot === undefined) return <Text c="dimmed">No data yet.</Text>;
        return <MultiqcView component={component} data={plot} filterValue={filterValue} onFilter={onFilter} />;
      }
    }
  },
  (before, after) =>
    before.component === after.component &&
    before.data === after.data &&
    before.onFilter === after.onFilter &&
    before.onContig === after.onContig &&
    before.colors === after.colors &&
    JSON.stringify(before.filterValue ?? null) === JSON.stringify(after.filterValue ?? null),
);

/** What a cell's menu (Export, Embed) needs beyond the cell; the same object from one filter change to the next. */
export interface CellMenu {
  components: readonly DashboardComponent[];
  canEmbed: boolean;
  /** The filters and version shown now. */
  view: () => ShownView;
}

interface ComponentCellProps {
  dashboardId: string;
  component: DashboardComponent;
  item: LayoutItem;
  cell: CellData;
  view: CellFilters;
  menu?: CellMenu;
}

/**
 * One component in its place on the grid, rendered again only when what it shows changed: each
 * streamed line renders the dashboard, and the other cells have nothing new to show.
 */
export const ComponentCell = memo(
  ComponentCellContent,
  (before: ComponentCellProps, after: ComponentCellProps) =>
    before.dashboardId === after.dashboardId &&
    before.component === after.component &&
    before.item === after.item &&
    before.cell.data === after.cell.data &&
    before.cell.waiting === after.cell.waiting &&
    before.cell.error === after.cell.error &&
    before.view === after.view &&
    before.menu === after.menu,
);

/** A cell's title, then its content, loader or error; its menu in the corner. */
function ComponentCellContent({ dashboardId, component, item, cell, view, menu }: ComponentCellProps) {
  const style = gridCellStyle(item);
  const state = cellState(component, cell);
  const label = component.title || (component.type === 'text' ? 'Text' : componentLabel(component));
  // Figures draw their title inside the chart (common's option), widgets as their label; a card
  // shows what its number is ("mean body_mass_g") under this heading.
  const paged = component.type === 'table' || component.type === 'image';
  const titled = component.title && (paged || component.type === 'card');
  // Tables and galleries show their own "Updating" next to their count (Paging.tsx).
  const updating = cell.waiting && cell.data !== undefined && !paged;
  return (
    <Card
      withBorder
      radius="md"
      className="dashboard-cell"
      style={style}
      component="section"
      aria-label={label}
      aria-busy={state === 'loading'}
      data-component-id={component.component_id}
      data-state={state}
      data-drawn-key={state === 'loading' ? undefined : view.viewKey}
      // What a figure's rows were computed from: the rows matching the filters (tests, the bench).
      data-total-rows={totalRowsOf(cell.data)}
    >
      {menu && (
        <ComponentMenu
          dashboardId={dashboardId}
          component={component}
          data={cell.data}
          view={menu.view}
          components={menu.components}
          canEmbed={menu.canEmbed}
          colors={view.colors}
        />
      )}
      {titled ? (
        // Room on the right for the menu.
        <Group justify="space-between" wrap="nowrap" mb="xs" pr={menu ? 28 : 0}>
          <Title order={2} size="h4">
            {component.title}
          </Title>
          {updating && <Loader size="xs" role="status" aria-label={`Updating ${label}`} />}
        </Group>
      ) : (
        // A bar along the cell's top edge, over it: a line that came and went with each filter change
        // resized every chart twice (each a whole layout and drawing of it) and moved it on screen,
        // and a spinner in the corner covered the end of a long chart title.
        updating && <div className="cell-updating" role="status" aria-label={`Updating ${label}`} />
      )}
      <CellBody dashboardId={dashboardId} component={component} cell={cell} view={view} />
    </Card>
  );
}
