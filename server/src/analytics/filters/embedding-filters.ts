import type { DashboardFilterScalar, FigureComponent } from '@service/common';
import type { Match } from './filter-sql.js';

/**
 * What a brush over an embedding selects (docs/dashboards.md "Embeddings"): a computed PCA with
 * ids, the ids of the points drawn inside it; given coordinates, every row inside the rectangle
 * `[x_low, x_high, y_low, y_high(, z_low, z_high)]`, drawn or not (a null end is open).
 */
export function embeddingMatch(
  component: FigureComponent,
  list: readonly (DashboardFilterScalar | null)[],
): { column: string; match: Match } {
  if (component.pca_columns !== undefined) {
    return { column: component.label ?? '', match: { kind: 'in', values: list } };
  }
  const end = (at: number) => (typeof list[at] === 'number' ? (list[at] as number) : null);
  const ranges = [component.x, component.y, component.z]
    .slice(0, list.length / 2)
    .map((column, index) => ({ column: column ?? '', low: end(index * 2), high: end(index * 2 + 1) }));
  return { column: component.x ?? '', match: { kind: 'box', ranges } };
}
