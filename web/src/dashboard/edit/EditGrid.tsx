import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import { ActionIcon, Card, Group, Menu, Text, Tooltip } from '@mantine/core';
import { DASHBOARD_GRID_COLUMNS, type DashboardComponent, type DashboardTab, type LayoutItem } from '@service/common';
import { useEffect } from 'react';
import ReactGridLayout, { type EventCallback, type Layout, useContainerWidth } from 'react-grid-layout';
import { CellBody } from '../ComponentCell.js';
import { componentLabel } from '../chips.js';
import { TYPE_LABELS } from './ComponentPanel.js';
import { keyboardMove } from './editor-state.js';

/** Row height and gaps of the editor's grid: those of the view's (styles.css `.dashboard-grid`). */
const ROW_HEIGHT = 60;
const GAP = 16;
const NO_VIEW = { filters: [], asOf: null, viewKey: 'edit', onFilter: () => {} };
const GRID_CONFIG = {
  cols: DASHBOARD_GRID_COLUMNS,
  rowHeight: ROW_HEIGHT,
  margin: [GAP, GAP] as [number, number],
  containerPadding: [0, 0] as [number, number],
};
/** Dragged by the handle only; resized by the lower-right corner. */
const DRAG_CONFIG = { enabled: true, handle: '.dashboard-drag-handle', bounded: false };
const RESIZE_CONFIG = { enabled: true, handles: ['se' as const] };

export interface EditCellData {
  data: unknown;
  waiting: boolean;
  /** Why there is no data (the preview failed, or the server draws it only once saved). */
  note: string | null;
}

const KEYS_HINT_ID = 'dashboard-move-keys';
/** What the page's sticky header covers at the top of the window (styles.css `.dashboard-editor-panel`'s top). */
const HEADER_HEIGHT = 76;

/** The first grid row the author sees (the page may be scrolled down the grid): where a new component goes. */
export function firstRowInView(): number {
  const grid = document.querySelector('.dashboard-edit-grid .react-grid-layout');
  if (grid === null) return 0;
  const hidden = HEADER_HEIGHT - grid.getBoundingClientRect().top;
  return hidden <= 0 ? 0 : Math.ceil(hidden / (ROW_HEIGHT + GAP));
}

/** The grid's cell of a component. */
function cellOf(grid: HTMLElement | null, componentId: string): Element | null | undefined {
  return grid?.querySelector(`[data-component-id="${CSS.escape(componentId)}"]`);
}

function labelOf(component: DashboardComponent): string {
  return component.title || (component.type === 'text' ? 'Text' : componentLabel(component));
}

export interface EditGridProps {
  components: readonly DashboardComponent[];
  layout: readonly LayoutItem[];
  selected: string | null;
  cellData: (component: DashboardComponent) => EditCellData;
  onLayout: (layout: LayoutItem[]) => void;
  onEdit: (componentId: string) => void;
  onRemove: (componentId: string) => void;
  dashboardId: string;
  otherTabs?: readonly DashboardTab[];
  onMoveToTab?: (componentId: string, tabId: string) => void;
  /** The component just added: scrolled into view and highlighted. */
  added?: string | null;
}

/**
 * The draft's components on a grid where they are dragged (by their handle) and resized (by the
 * corner); each has Edit and Remove, and Move to another tab when there are others. The layout is
 * reported when a drag or resize ends.
 */
export function EditGrid({
  components,
  layout,
  selected,
  cellData,
  onLayout,
  onEdit,
  onRemove,
  dashboardId,
  otherTabs = [],
  onMoveToTab,
  added = null,
}: EditGridProps) {
  const { width, containerRef, mounted } = useContainerWidth();
  useEffect(() => {
    if (added !== null && mounted) cellOf(containerRef.current, added)?.scrollIntoView({ block: 'nearest' });
  }, [added, mounted, containerRef]);
  const byId = new Map(components.map((component) => [component.component_id, component]));
  // A section spans the grid (dashboard-sections.ts): it moves up and down, never narrower.
  const gridLayout: Layout = layout.map(({ component_id, ...place }) => ({
    i: component_id,
    ...place,
    ...(byId.get(component_id)?.type === 'section' ? { minW: DASHBOARD_GRID_COLUMNS, maxH: 2 } : {}),
  }));
  const commit: EventCallback = (next) => onLayout(next.map(({ i, x, y, w, h }) => ({ component_id: i, x, y, w, h })));
  return (
    <div ref={containerRef} className="dashboard-edit-grid" data-testid="edit-grid">
      <Text id={KEYS_HINT_ID} size="xs" c="dimmed" mb={4}>
        Drag a component by its title, resize it by its lower-right corner; or focus its title and use the arrow keys to
        move it, Shift + arrows to resize it.
      </Text>
      {mounted && (
        <ReactGridLayout
          width={width}
          layout={gridLayout}
          gridConfig={GRID_CONFIG}
          dragConfig={DRAG_CONFIG}
          resizeConfig={RESIZE_CONFIG}
          onDragStop={commit}
          onResizeStop={commit}
        >
          {layout.map((item) => {
            const component = byId.get(item.component_id);
            if (component === undefined) return <div key={item.component_id} />;
            const id = item.component_id;
            const label = labelOf(component);
            return (
              // The grid places its direct children: this div, not the card inside it.
              <div key={id} data-component-id={id}>
                <Card
                  withBorder
                  radius="md"
                  h="100%"
                  component="section"
                  aria-label={label}
                  className="dashboard-edit-cell"
                  padding="xs"
                  data-selected={selected === id || undefined}
                  data-added={added === id || undefined}
                >
                  <CellHead
                    item={item}
                    label={label}
                    type={component.type}
                    otherTabs={otherTabs}
                    onMove={(moved) => onLayout(layout.map((other) => (other.component_id === id ? moved : other)))}
                    onMoveToTab={onMoveToTab && ((tabId) => onMoveToTab(id, tabId))}
                    onEdit={() => onEdit(id)}
                    onRemove={() => onRemove(id)}
                  />
                  <EditCellBody dashboardId={dashboardId} component={component} cell={cellData(component)} />
                </Card>
              </div>
            );
          })}
        </ReactGridLayout>
      )}
    </div>
  );
}

/** A cell's head: its handle (drag it, or move and resize it with the keys), type, and its buttons. */
function CellHead({
  item,
  label,
  type,
  otherTabs,
  onMove,
  onMoveToTab,
  onEdit,
  onRemove,
}: {
  item: LayoutItem;
  label: string;
  type: DashboardComponent['type'];
  otherTabs: readonly DashboardTab[];
  onMove: (moved: LayoutItem) => void;
  onMoveToTab: ((tabId: string) => void) | undefined;
  onEdit: () => void;
  onRemove: () => void;
}) {
  return (
    <Group justify="space-between" wrap="nowrap" gap={4} mb={4} className="dashboard-edit-head">
      <Group
        gap={6}
        wrap="nowrap"
        className="dashboard-drag-handle"
        // In a narrow cell (the side panel open) the title wraps rather than being cut, and the
        // type label and the buttons give it their room (styles.css).
        style={{ cursor: 'move', minWidth: 0, flex: 1 }}
        tabIndex={0}
        role="button"
        aria-roledescription="movable component"
        aria-describedby={KEYS_HINT_ID}
        onKeyDown={(event) => {
          const moved = keyboardMove(item, event.key, event.shiftKey);
          if (moved === null) return;
          event.preventDefault();
          onMove(moved);
        }}
      >
        <span aria-hidden="true">⠿</span>
        <Text size="sm" fw={600} className="dashboard-edit-title">
          {label}
        </Text>
        <Text size="xs" c="dimmed" className="dashboard-edit-type" style={{ flexShrink: 0 }}>
          {TYPE_LABELS[type]}
        </Text>
      </Group>
      <Group gap={2} wrap="nowrap" className="dashboard-edit-actions">
        {otherTabs.length > 0 && onMoveToTab !== undefined && (
          <MoveToTab label={label} tabs={otherTabs} onMove={onMoveToTab} />
        )}
        <Tooltip label="Edit">
          <ActionIcon variant="subtle" aria-label={`Edit ${label}`} onClick={onEdit}>
            <span aria-hidden="true">✎</span>
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Remove">
          <ActionIcon variant="subtle" color="red" aria-label={`Remove ${label}`} onClick={onRemove}>
            <span aria-hidden="true">✕</span>
          </ActionIcon>
        </Tooltip>
      </Group>
    </Group>
  );
}

/** What the component shows while edited, or why it shows nothing yet. */
function EditCellBody({
  dashboardId,
  component,
  cell,
}: {
  dashboardId: string;
  component: DashboardComponent;
  cell: EditCellData;
}) {
  return (
    <div className="dashboard-edit-body">
      {cell.note !== null && cell.data === undefined ? (
        <Text size="sm" c="dimmed">
          {cell.note}
        </Text>
      ) : (
        <CellBody
          dashboardId={dashboardId}
          component={component}
          cell={{ data: cell.data, waiting: cell.waiting, error: null }}
          view={NO_VIEW}
        />
      )}
    </div>
  );
}

/** A menu of the other tabs, to move a component there. */
function MoveToTab({
  label,
  tabs,
  onMove,
}: {
  label: string;
  tabs: readonly DashboardTab[];
  onMove: (tabId: string) => void;
}) {
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <ActionIcon variant="subtle" aria-label={`Move ${label} to another tab`}>
          <span aria-hidden="true">⇄</span>
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Move to tab</Menu.Label>
        {tabs.map((tab) => (
          <Menu.Item key={tab.tab_id} onClick={() => onMove(tab.tab_id)}>
            {tab.title}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
