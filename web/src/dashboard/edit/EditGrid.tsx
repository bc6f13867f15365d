import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import { ActionIcon, Card, Group, Menu, Text, Tooltip } from '@mantine/core';
import {
  type ComponentData,
  DASHBOARD_GRID_COLUMNS,
  type DashboardComponent,
  type DashboardTab,
  type LayoutItem,
} from '@service/common';
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

export interface EditCellData {
  data: ComponentData | undefined;
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

function labelOf(component: DashboardComponent): string {
  return component.title || (component.type === 'text' ? 'Text' : componentLabel(component));
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
}: {
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
}) {
  const { width, containerRef, mounted } = useContainerWidth();
  useEffect(() => {
    if (added === null || !mounted) return;
    const cell = containerRef.current?.querySelector(`[data-component-id="${CSS.escape(added)}"]`);
    cell?.scrollIntoView({ block: 'nearest' });
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
          gridConfig={{
            cols: DASHBOARD_GRID_COLUMNS,
            rowHeight: ROW_HEIGHT,
            margin: [GAP, GAP],
            containerPadding: [0, 0],
          }}
          dragConfig={{ enabled: true, handle: '.dashboard-drag-handle', bounded: false }}
          resizeConfig={{ enabled: true, handles: ['se'] }}
          onDragStop={commit}
          onResizeStop={commit}
        >
          {layout.map((item) => {
            const component = byId.get(item.component_id);
            if (component === undefined) return <div key={item.component_id} />;
            const label = labelOf(component);
            const cell = cellData(component);
            return (
              <div key={item.component_id} data-component-id={item.component_id}>
                <Card
                  withBorder
                  radius="md"
                  h="100%"
                  component="section"
                  aria-label={label}
                  className="dashboard-edit-cell"
                  padding="xs"
                  data-selected={selected === item.component_id || undefined}
                  data-added={added === item.component_id || undefined}
                >
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
                        onLayout(layout.map((other) => (other.component_id === item.component_id ? moved : other)));
                      }}
                    >
                      <span aria-hidden="true">⠿</span>
                      <Text size="sm" fw={600} className="dashboard-edit-title">
                        {label}
                      </Text>
                      <Text size="xs" c="dimmed" className="dashboard-edit-type" style={{ flexShrink: 0 }}>
                        {TYPE_LABELS[component.type]}
                      </Text>
                    </Group>
                    <Group gap={2} wrap="nowrap" className="dashboard-edit-actions">
                      {otherTabs.length > 0 && onMoveToTab && (
                        <MoveToTab
                          label={label}
                          tabs={otherTabs}
                          onMove={(tabId) => onMoveToTab(item.component_id, tabId)}
                        />
                      )}
                      <Tooltip label="Edit">
                        <ActionIcon
                          variant="subtle"
                          aria-label={`Edit ${label}`}
                          onClick={() => onEdit(item.component_id)}
                        >
                          <span aria-hidden="true">✎</span>
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label="Remove">
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`Remove ${label}`}
                          onClick={() => onRemove(item.component_id)}
                        >
                          <span aria-hidden="true">✕</span>
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Group>
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
                </Card>
              </div>
            );
          })}
        </ReactGridLayout>
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
