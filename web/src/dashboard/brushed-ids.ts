import { type DashboardFilterValue, type FigureComponent, type FigureData, MAX_BRUSHED_IDS } from '@service/common';

/**
 * A rectangle brushed over an embedding with ids (`label`): the ids of the points drawn inside it,
 * in any of its panels (one; three for a 3-D embedding's pairs). The points are found by their
 * pixels (ECharts' `convertToPixel` per panel), so the brush means what the reader saw.
 */

/** Converts a point of a panel's axes to the chart's pixels (ECharts' `convertToPixel({gridIndex})`). */
export type ToPixel = (panel: number, point: [number, number]) => [number, number] | undefined;

/** What a brush selected: the filter value, or why it sets none (more ids than a filter lists). */
export type BrushedIds = { value: DashboardFilterValue | null } | { tooMany: number };

export const isIdBrush = (component: FigureComponent) =>
  component.chart === 'embedding' && component.label !== undefined;

const PANELS_2D = [['x', 'y']] as const;
const PANELS_3D = [
  ['x', 'y'],
  ['x', 'z'],
  ['y', 'z'],
] as const;

/** Each area's pixel rectangle `[[left, right], [top, bottom]]` (ECharts' `range` of a rect brush). */
function rectangles(areas: readonly { range?: unknown }[]): [number, number, number, number][] {
  return areas.flatMap(({ range }) => {
    if (!Array.isArray(range) || range.length !== 2) return [];
    const [xs, ys] = range as unknown[];
    if (!Array.isArray(xs) || !Array.isArray(ys)) return [];
    const [left, right, top, bottom] = [...xs, ...ys].map(Number);
    return [left, right, top, bottom].every((edge) => Number.isFinite(edge))
      ? [[left as number, right as number, top as number, bottom as number]]
      : [];
  });
}

export function brushedIds(data: FigureData, areas: readonly { range?: unknown }[], toPixel: ToPixel): BrushedIds {
  const boxes = rectangles(areas);
  if (boxes.length === 0) return { value: null };
  const at = (role: string) => data.columns.findIndex((column) => column.name === role);
  const number = (row: readonly unknown[], role: string) => {
    const value = row[at(role)];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const panels = at('z') >= 0 ? PANELS_3D : PANELS_2D;
  const ids = new Set<string | number | boolean | null>();
  for (const row of data.rows) {
    const inside = panels.some(([a, b], panel) => {
      const [first, second] = [number(row, a), number(row, b)];
      if (first === null || second === null) return false;
      const pixel = toPixel(panel, [first, second]);
      return (
        pixel !== undefined &&
        boxes.some(
          ([left, right, top, bottom]) =>
            pixel[0] >= left && pixel[0] <= right && pixel[1] >= top && pixel[1] <= bottom,
        )
      );
    });
    if (!inside) continue;
    const id = row[at('label')];
    ids.add(typeof id === 'string' || typeof id === 'number' || typeof id === 'boolean' ? id : null);
  }
  if (ids.size > MAX_BRUSHED_IDS) return { tooMany: ids.size };
  return { value: ids.size === 0 ? null : [...ids] };
}
