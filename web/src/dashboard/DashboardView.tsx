import { Group, Stack, Text } from '@mantine/core';
import {
  type ColorAssignment,
  componentsInTab,
  DASHBOARD_GRID_COLUMNS,
  type Dashboard,
  type DashboardComponent,
  foldSections,
  readsCollection,
  sectionMembers,
} from '@service/common';
import { type CSSProperties, memo, useEffect, useMemo, useRef, useState } from 'react';
import { mayEmbed } from '../permissions/embedding.js';
import { type CellFilters, type CellMenu, ComponentCell } from './ComponentCell.js';
import { useStaleContigs } from './ContigPicker.js';
import { DashboardTabs, useOpenTab } from './DashboardTabs.js';
import type { ShownView } from './export/ComponentMenu.js';
import { FilterChips } from './FilterChips.js';
import {
  type DashboardViewActions,
  type DashboardView as DashboardViewState,
  useDashboardView,
} from './filter-state.js';
import { placeComponents } from './layout.js';
import { FigureView } from './lazy.js';
import { LiveControls, type LiveDashboard, NewDataNotice, useLiveDashboard } from './live.js';
import { SectionHeader, useFoldedSections } from './sections.js';
import { useDashboardColors } from './useDashboardColors.js';
import { type DashboardData, useDashboardData } from './useDashboardData.js';
import { useCellsInSight } from './useInSight.js';
import { AsOfBanner, VersionPicker } from './VersionPicker.js';

/**
 * A dashboard's components on its grid, with the filters and the version they show (both in the
 * address bar), the chips of the active filters, and the version picker. With tabs, the open tab's
 * components (its data alone is asked for); the filters are the dashboard's, on every tab.
 * `atRevision`: `dashboard` is a past revision (History): its components are computed as saved
 * then (`preview`), and it follows no new data.
 */
export function DashboardView({ dashboard, atRevision = false }: { dashboard: Dashboard; atRevision?: boolean }) {
  const { components: all, tabs } = dashboard;
  const [openTab, setOpenTab] = useOpenTab(tabs);
  const opened = useOpenedTabs(dashboard, openTab);
  const [view, actions] = useDashboardView(all);
  const [folded, toggleSection] = useFoldedSections(dashboard.dashboard_id, all);
  const grid = tabGrid(dashboard, openTab, folded);
  const { components, hidden } = grid;
  const shownComponents = grid.shown.map(({ component }) => component);
  const dataIds = shownComponents.filter(readsCollection).map(idOf);
  const only = hidden.size === 0 ? undefined : computedIds(components, hidden);
  const live = useLiveDashboard(dashboard.dashboard_id, shownComponents, view.asOf === null && !atRevision);
  const preview = atRevision ? revisionPreview(components, hidden) : undefined;
  // Components out of sight are asked for once scrolled to (docs/dashboards.md "In the web app").
  const page = useRef<HTMLDivElement>(null);
  const inSight = useCellsInSight(page);
  const data = useDashboardData(
    dashboard.dashboard_id,
    dataIds,
    view.filters,
    view.asOf,
    openTab,
    only,
    view.contigs,
    live.refresh,
    preview,
    inSight,
  );
  useStaleContigs(view.contigs, data, actions.setContig);
  const colors = useDashboardColors(dashboard, data, view.filters, view.asOf);
  const hasFigures = components.some((component) => component.type === 'figure');
  useEffect(() => {
    // The chart library loads while the data is computed, not after it has arrived.
    if (hasFigures) void FigureView.preload();
  }, [hasFigures]);
  const viewKey = JSON.stringify([view.filters, view.asOf, view.contigs]);
  const cellView = useCellView(view, viewKey, actions, colors);
  const canEmbed = mayEmbed(dashboard);
  const shown = useRef<ShownView>(view);
  shown.current = view;
  const menu = useMemo(() => ({ components: all, canEmbed, view: () => shown.current }), [all, canEmbed]);
  const tabBar = tabs.length > 0 && <DashboardTabs tabs={tabs} open={openTab} onOpen={setOpenTab} />;
  if (all.length === 0) return <Text c="dimmed">This dashboard has no components yet.</Text>;
  return (
    <Stack ref={page} gap="sm" data-view-key={viewKey}>
      {tabBar}
      {all.some(readsCollection) && (
        <FilterBar dashboardId={dashboard.dashboard_id} components={all} view={view} actions={actions} live={live} />
      )}
      <NewDataNotice live={live} />
      {view.asOf !== null && (
        <AsOfBanner dashboardId={dashboard.dashboard_id} asOf={view.asOf} onLive={() => actions.setAsOf(null)} />
      )}
      {components.length === 0 && <Text c="dimmed">This tab has no components yet.</Text>}
      {opened.map((tabId) => (
        <TabGrid
          key={tabId ?? ''}
          dashboardId={dashboard.dashboard_id}
          layout={tabId === openTab ? () => grid : () => tabGrid(dashboard, tabId, folded)}
          hidden={tabId !== openTab}
          data={data}
          view={cellView}
          menu={menu}
          onToggleSection={toggleSection}
        />
      ))}
    </Stack>
  );
}

/**
 * What the cells are given of the view: the same object while the view is the same, so that cells
 * with nothing new skip rendering. Its callbacks call the latest actions: an action kept from an
 * earlier render would change the address as it was then (React Router's setter reads the search
 * params of its render), undoing what changed since (the open tab, a table's page).
 */
function useCellView(
  view: DashboardViewState,
  viewKey: string,
  actions: DashboardViewActions,
  colors: ColorAssignment,
): CellFilters {
  const latest = useRef(actions);
  latest.current = actions;
  // The same callbacks from one view to the next: a cell's drawing, given nothing else new, is not rendered again.
  const callbacks = useMemo(
    () => ({
      onFilter: (...change: Parameters<DashboardViewActions['setFilter']>) => latest.current.setFilter(...change),
      onContig: (...change: Parameters<DashboardViewActions['setContig']>) => latest.current.setContig(...change),
    }),
    [],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: `viewKey` stands for `view`.
  return useMemo(() => ({ ...view, viewKey, ...callbacks, colors, reader: true }), [viewKey, colors]);
}

/** A tab's components as placed on its grid, those shown with the reader's folded sections, and those folded away. */
interface TabGridLayout {
  components: DashboardComponent[];
  shown: ReturnType<typeof placeComponents>;
  members: Map<string, string[]>;
  folded: ReadonlySet<string>;
  hidden: Set<string>;
}

function tabGrid(dashboard: Dashboard, tabId: string | null, folded: ReadonlySet<string>): TabGridLayout {
  const components = componentsInTab(dashboard.components, dashboard.tabs, tabId);
  const placed = placeComponents({ components, layout: dashboard.layout });
  const members = sectionMembers(placed);
  const hidden = new Set([...folded].flatMap((sectionId) => members.get(sectionId) ?? []));
  return { components, shown: foldSections(placed, folded), members, folded, hidden };
}

/**
 * The tabs opened so far, the open one among them, in the order they were opened. Their grids stay
 * mounted (hidden while another tab is open), so opening a tab again redraws no chart whose data
 * has not changed: a tab switch then costs its data request.
 */
function useOpenedTabs(dashboard: Dashboard, open: string | null): (string | null)[] {
  const { dashboard_id: dashboardId, tabs } = dashboard;
  const [opened, setOpened] = useState<{ dashboardId: string; tabs: (string | null)[] }>({ dashboardId, tabs: [] });
  const known = (tabId: string | null) =>
    tabs.length === 0 ? tabId === null : tabs.some((tab) => tab.tab_id === tabId);
  const before = opened.dashboardId === dashboardId ? opened.tabs.filter(known) : [];
  const now = before.includes(open) ? before : [...before, open];
  const changed = opened.dashboardId !== dashboardId || JSON.stringify(now) !== JSON.stringify(opened.tabs);
  // Kept for the next render (React renders again at once, before painting).
  if (changed) setOpened({ dashboardId, tabs: now });
  return now;
}

interface TabGridProps {
  dashboardId: string;
  /**
   * The tab's layout, placed when the grid renders: a hidden grid does not render again, and the
   * open tab's is the one placed already.
   */
  layout: () => TabGridLayout;
  /** Another tab is open: the grid keeps what it drew, and is not rendered again until it opens. */
  hidden: boolean;
  data: DashboardData;
  view: CellFilters;
  menu: CellMenu;
  onToggleSection: (sectionId: string) => void;
}

/** One tab's grid: its section headers and component cells in their places. */
const TabGrid = memo(
  function TabGrid({ dashboardId, layout, hidden, data, view, menu, onToggleSection }: TabGridProps) {
    const { shown, members, folded } = layout();
    return (
      <div
        className="dashboard-grid"
        hidden={hidden}
        style={{ '--dashboard-columns': DASHBOARD_GRID_COLUMNS } as CSSProperties}
      >
        {shown.map(({ component, item }) =>
          component.type === 'section' ? (
            <SectionHeader
              key={component.component_id}
              section={component}
              item={item}
              folded={folded.has(component.component_id)}
              hiddenCount={members.get(component.component_id)?.length ?? 0}
              onToggle={() => onToggleSection(component.component_id)}
            />
          ) : (
            <ComponentCell
              key={component.component_id}
              dashboardId={dashboardId}
              component={component}
              item={item}
              cell={{
                data: data.components.get(component.component_id),
                waiting: data.waiting.has(component.component_id),
                error: data.error,
              }}
              view={view}
              menu={menu}
            />
          ),
        )}
      </div>
    );
  },
  // A hidden grid shows nothing new: rendering it with each answer of the open tab would only cost time.
  (before, after) => before.hidden && after.hidden,
);

/** The active filters' chips, and the version picker. */
function FilterBar({
  dashboardId,
  components,
  view,
  actions,
  live,
}: {
  dashboardId: string;
  components: readonly DashboardComponent[];
  view: DashboardViewState;
  actions: DashboardViewActions;
  live: LiveDashboard;
}) {
  return (
    <Group justify="space-between" align="flex-end">
      <FilterChips
        filters={view.filters}
        components={components}
        onRemove={(componentId) => actions.setFilter(componentId, null)}
        onClear={actions.clearFilters}
      />
      <LiveControls live={live}>
        <VersionPicker dashboardId={dashboardId} asOf={view.asOf} onChange={actions.setAsOf} />
      </LiveControls>
    </Group>
  );
}

const idOf = (component: DashboardComponent) => component.component_id;

/** What the server computes while sections are folded: the open tab's components that show. */
function computedIds(inTab: readonly DashboardComponent[], hidden: ReadonlySet<string>): string[] {
  return inTab
    .filter(readsCollection)
    .map(idOf)
    .filter((id) => !hidden.has(id));
}

/** A past revision's components the server computes (sent as `preview`), as that revision saved them. */
function revisionPreview(inTab: readonly DashboardComponent[], hidden: ReadonlySet<string>): DashboardComponent[] {
  return inTab.filter((component) => readsCollection(component) && !hidden.has(component.component_id));
}
