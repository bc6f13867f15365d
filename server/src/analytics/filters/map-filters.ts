import type { DashboardFilterScalar, FigureComponent } from '@service/common';
import type { Match } from './filter-sql.js';

/**
 * What a map's filter selects (docs/dashboards.md "Maps"): a choropleth's clicked countries, the
 * rows whose region column names one of the countries the codes listed name (by any of its codes:
 * the answer lists only the commonest), or holds one of them; a point map's brushed rectangle
 * `[longitude_low, longitude_high, latitude_low, latitude_high]`, every row inside it, drawn or
 * not (a null end is open).
 */
export function mapMatch(
  component: FigureComponent,
  list: readonly (DashboardFilterScalar | null)[],
): { column: string; match: Match } {
  if (component.chart === 'choropleth')
    return { column: component.region ?? '', match: { kind: 'country', values: list } };
  const end = (at: number) => (typeof list[at] === 'number' ? (list[at] as number) : null);
  const ranges = [
    { column: component.longitude ?? '', low: end(0), high: end(1) },
    { column: component.latitude ?? '', low: end(2), high: end(3) },
  ];
  return { column: component.longitude ?? '', match: { kind: 'box', ranges } };
}
