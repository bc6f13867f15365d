import { Group, Stack, Text } from '@mantine/core';
import { componentsInTab, DASHBOARD_GRID_COLUMNS, type Dashboard } from '@service/common';
import { type CSSProperties, useEffect } from 'react';
import { mayEmbed } from '../permissions/embedding.js';
import { ComponentCell } from './ComponentCell.js';
import { DashboardTabs, useOpenTab } from './DashboardTabs.js';
import { FilterChips } from './FilterChips.js';
import { useDashboardView } from './filter-state.js';
import { placeComponents } from './layout.js';
import { FigureView } from './lazy.js';
import { useDashboardColors } from './useDashboardColors.js';
import { useDashboardData } from './useDashboardData.js';
import { AsOfBanner, VersionPicker } from './VersionPicker.js';

/**
 * A dashboard's components on its grid, with the filters and the version they show (both in the
 * address bar), the chips of the active filters, and the version picker. With tabs, the open tab's
 * components (its data alone is asked for); the filters are the dashboard's, on every tab.
 */
export function DashboardView({ dashboard }: { dashboard: Dashboard }) {
  const { components: all, tabs } = dashboard;
  const [openTab, setOpenTab] = useOpenTab(tabs);
  const components = componentsInTab(all, tabs, openTab);
  const [view, actions] = useDashboardView(all);
  const dataIds = components
    .filter((component) => component.type !== 'text')
    .map((component) => component.component_id);
  const data = useDashboardData(dashboard.dashboard_id, dataIds, view.filters, view.asOf, openTab);
  const colors = useDashboardColors(dashboard, data, view.filters, view.asOf);
  const hasFigures = components.some((component) => component.type === 'figure');
  useEffect(() => {
    // The chart library loads while the data is computed, not after it has arrived.
    if (hasFigures) void FigureView.preload();
  }, [hasFigures]);
  const tabBar = tabs.length > 0 && <DashboardTabs tabs={tabs} open={openTab} onOpen={setOpenTab} />;
  if (all.length === 0) return <Text c="dimmed">This dashboard has no components yet.</Text>;
  const viewKey = JSON.stringify([view.filters, view.asOf]);
  const cellView = { filters: view.filters, asOf: view.asOf, viewKey, onFilter: actions.setFilter, colors };
  const menu = { components: all, canEmbed: mayEmbed(dashboard) };
  return (
    <Stack gap="sm" data-view-key={viewKey}>
      {tabBar}
      {all.some((component) => component.type !== 'text') && (
        <Group justify="space-between" align="flex-end">
          <FilterChips
            filters={view.filters}
            components={all}
            onRemove={(componentId) => actions.setFilter(componentId, null)}
            onClear={actions.clearFilters}
          />
          <VersionPicker dashboardId={dashboard.dashboard_id} asOf={view.asOf} onChange={actions.setAsOf} />
        </Group>
      )}
      {view.asOf !== null && (
        <AsOfBanner dashboardId={dashboard.dashboard_id} asOf={view.asOf} onLive={() => actions.setAsOf(null)} />
      )}
      {components.length === 0 && <Text c="dimmed">This tab has no components yet.</Text>}
      <div className="dashboard-grid" style={{ '--dashboard-columns': DASHBOARD_GRID_COLUMNS } as CSSProperties}>
        {placeComponents({ components, layout: dashboard.layout }).map(({ component, item }) => (
          <ComponentCell
            key={component.component_id}
            dashboardId={dashboard.dashboard_id}
            component={component}
            item={item}
            cell={{
              data: data.components.get(component.component_id),
              waiting: data.waiting.has(component.component_id),
              error: data.error,
            }}
            view={cellView}
            menu={menu}
          />
        ))}
      </div>
    </Stack>
  );
}
