import { DASHBOARD_GRID_COLUMNS, type Dashboard, type DashboardComponent, type LayoutItem } from '@service/common';
import type { CSSProperties } from 'react';

/** Heights of components that have no layout entry, in grid rows. */
const DEFAULT_HEIGHT: Record<DashboardComponent['type'], number> = {
  text: 2,
  table: 8,
  figure: 6,
  card: 2,
  interactive: 2,
  multiqc: 8,
  section: 1,
  image: 8,
};

/**
 * Every component with its place: the layout's entries first, then the components it leaves out,
 * full width below them; in reading order (top to bottom, then left to right).
 */
export function placeComponents(dashboard: Pick<Dashboard, 'components' | 'layout'>) {
  const byId = new Map(dashboard.components.map((component) => [component.component_id, component]));
  const placed = dashboard.layout.flatMap((item) => {
    const component = byId.get(item.component_id);
    return component ? [{ component, item }] : [];
  });
  let bottom = Math.max(0, ...placed.map(({ item }) => item.y + item.h));
  const laidOut = new Set(placed.map(({ component }) => component.component_id));
  for (const component of dashboard.components) {
    if (laidOut.has(component.component_id)) continue;
    const h = DEFAULT_HEIGHT[component.type];
    placed.push({
      component,
      item: { component_id: component.component_id, x: 0, y: bottom, w: DASHBOARD_GRID_COLUMNS, h },
    });
    bottom += h;
  }
  return placed.sort((a, b) => a.item.y - b.item.y || a.item.x - b.item.x);
}

/** Where a cell sits on the view's grid (styles.css `.dashboard-cell`): 1-based CSS grid lines. */
export function gridCellStyle(item: LayoutItem): CSSProperties {
  return {
    '--dashboard-x': item.x + 1,
    '--dashboard-y': item.y + 1,
    '--dashboard-w': item.w,
    '--dashboard-h': item.h,
  } as CSSProperties;
}
