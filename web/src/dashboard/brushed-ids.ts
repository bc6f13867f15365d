import { type DashboardFilterValue, type FigureComponent, type FigureData, MAX_BRUSHED_IDS } from '@service/common';

/**
 * A rectangle brushed over an embedding, in any of its panels (one; three for a 3-D embedding's
 * pairs). Of given coordinates it is the rectangle in them (`brushedBox`): the server selects
 * every row inside, drawn or not. Of a computed PCA with ids (`label`) it is the ids of the points
 * drawn inside (`brushedIds`), found by their pixels (ECharts' `convertToPixel` per panel).
 */

/** Converts a point of a panel's axes to the chart's pixels (ECharts' `convertToPixel({gridIndex})`). */
export type ToPixel = (panel: number, point: [number, number]) => [number, number] | undefined;

/** What a brush selected: the filter value, or why it sets none (more ids than a filter lists). */
export type BrushedIds = { value: DashboardFilterValue | null } | { tooMany: number };

/** A computed PCA with ids: its axes are no column, so a brush selects the ids of the points drawn inside. */
export const isIdBrush = (component: FigureComponent) =>
  component.chart === 'embedding' && component.pca_columns !== undefined && component.label !== undefined;

/**
 * An embedding of given coordinates, or a point map: a brush is a rectangle of them, every row
 * inside selected on the server.
 */
export const isBoxBrush = (component: FigureComponent) =>
  (component.chart === 'embedding' && component.pca_columns === undefined) || component.chart === 'point_map';

/** Converts a chart pixel to a panel's axes (ECharts' `convertFromPixel({gridIndex})`). */
export type FromPixel = (panel: number, pixel: [number, number]) => [number, number] | undefined;

/** Whether a chart pixel is inside a panel (ECharts' `containPixel({gridIndex})`). */
export type InPanel = (panel: number, pixel: [number, number]) => boolean;

const AXIS_SLOT = { x: 0, y: 1, z: 2 } as const;

/**
 * The rectangle brushed over an embedding of given coordinates as its filter value: `[x_low,
 * x_high, y_low, y_high]`, or for a 3-D one the six ends with null for the axis the brushed panel
 * does not show; null when nothing (or nothing inside a panel) is brushed.
 */
export function brushedBox(
  component: FigureComponent,
  areas: readonly { range?: unknown }[],
  fromPixel: FromPixel,
  inPanel: InPanel,
): (number | null)[] | null {
  const [box] = rectangles(areas);
  if (box === undefined) return null;
  const [left, right, top, bottom] = box;
  const panels = component.z === undefined ? PANELS_2D : PANELS_3D;
  const panel = panels.findIndex((_, index) => inPanel(index, [(left + right) / 2, (top + bottom) / 2]));
  const axes = panels[panel];
  const [a, b] = [fromPixel(panel, [left, bottom]), fromPixel(panel, [right, top])];
  if (axes === undefined || a === undefined || b === undefined) return null;
  const value: (number | null)[] = new Array(panels.length === 1 ? 4 : 6).fill(null);
  axes.forEach((axis, k) => {
    value[AXIS_SLOT[axis] * 2] = Math.min(a[k] as number, b[k] as number);
    value[AXIS_SLOT[axis] * 2 + 1] = Math.max(a[k] as number, b[k] as number);
  });
  return value.every((end) => end === null || Number.isFinite(end)) ? value : null;
}

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
