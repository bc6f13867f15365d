import type { DashboardFilterScalar, DashboardFilterValue, FigureComponent } from '@service/common';
import type { Match } from './filter-sql.js';

type Scalar = DashboardFilterScalar | null;

/**
 * What a click on a sunburst or treemap node, a sankey node or flow, or an UpSet intersection asks
 * of the rows (its value already checked by `filterValueProblem`): every level of the node's path
 * equal to its value; the flow's two levels (the node's one) equal to theirs; in exactly the
 * intersection's sets and none of the others (of item–set pairs: the items paired with exactly
 * those sets in the whole table, whatever the other filters).
 */
export function hierarchySetMatches(
  figure: FigureComponent,
  value: DashboardFilterValue,
): { column: string; match: Match }[] {
  const list = (Array.isArray(value) ? value : []) as Scalar[];
  const levels = figure.levels ?? [];
  const equal = (column: string | undefined, item: Scalar) => ({
    column: column ?? '',
    match: { kind: 'in', values: [item] } as Match,
  });
  switch (figure.chart) {
    case 'sunburst':
    case 'treemap':
      return list.map((item, index) => equal(levels[index], item));
    case 'sankey': {
      const level = Number(list[0]);
      return list.slice(1).map((item, index) => equal(levels[level + index], item));
    }
    default:
      // Item–set pairs: the items paired with exactly these sets (a semi-join over the table).
      if (figure.sets === undefined) {
        const sets = list.map(String);
        return [{ column: figure.item ?? '', match: { kind: 'exact_sets', set: figure.set ?? '', sets } }];
      }
      return (figure.sets ?? []).map((set) => ({ column: set, match: { kind: 'member', value: list.includes(set) } }));
  }
}
