import { Group, Stack, Text } from '@mantine/core';
import { DASHBOARD_GRID_COLUMNS, type Dashboard } from '@service/common';
import { type CSSProperties, useEffect } from 'react';
import { mayEmbed } from '../permissions/embedding.js';
import { ComponentCell } from './ComponentCell.js';
import { FilterChips } from './FilterChips.js';
import { useDashboardView } from './filter-state.js';
import { placeComponents } from './layout.js';
import { FigureView } from './lazy.js';
import { useDashboardColors } from './useDashboardColors.js';
import { useDashboardData } from './useDashboardData.js';
import { AsOfBanner, VersionPicker } from './VersionPicker.js';

/**
 * A dashboard's components on its grid, with the filters and the version they show (both in the
 * address bar), the chips of the active filters, and the version picker.
 */
export function DashboardView({ dashboard }: { dashboard: Dashboard }) {
  const { components } = dashboard;
  const [view, actions] = useDashboardView(components);
  const dataIds = components
    .filter((component) => component.type !== 'text')
    .map((component) => component.component_id);
  const data = useDashboardData(dashboard.dashboard_id, dataIds, view.filters, view.asOf);
  const colors = useDashboardColors(dashboard.dashboard_id, components, data, view.filters, view.asOf);
  const hasFigures = components.some((component) => component.type === 'figure');
  useEffect(() => {
    // The chart library loads while the data is computed, not after it has arrived.
    if (hasFigures) void FigureView.preload();
  }, [hasFigures]);
  if (components.length === 0) return <Text c="dimmed">This dashboard has no components yet.</Text>;
  const viewKey = JSON.stringify([view.filters, view.asOf]);
  const cellView = { filters: view.filters, asOf: view.asOf, viewKey, onFilter: actions.setFilter, colors };
  const menu = { components, canEmbed: mayEmbed(dashboard) };
  return (
    <Stack gap="sm" data-view-key={viewKey}>
      {dataIds.length > 0 && (
        <Group justify="space-between" align="flex-end">
          <FilterChips
            filters={view.filters}
            components={components}
            onRemove={(componentId) => actions.setFilter(componentId, null)}
            onClear={actions.clearFilters}
          />
          <VersionPicker dashboardId={dashboard.dashboard_id} asOf={view.asOf} onChange={actions.setAsOf} />
        </Group>
      )}
      {view.asOf !== null && (
        <AsOfBanner dashboardId={dashboard.dashboard_id} asOf={view.asOf} onLive={() => actions.setAsOf(null)} />
      )}
      <div className="dashboard-grid" style={{ '--dashboard-columns': DASHBOARD_GRID_COLUMNS } as CSSProperties}>
        {placeComponents(dashboard).map(({ component, item }) => (
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
