import type { ComponentAgg, RankedDistributionChart } from '@service/common';

/** Column kinds and role specs as column-fit.ts has them (it imports this module: no import back). */
type ColumnKind = 'numeric' | 'temporal' | 'boolean' | 'text';
interface RoleSpec {
  kinds: readonly ColumnKind[];
  required: boolean;
  label?: string;
}
type FigureRole = 'x' | 'y' | 'color' | 'size' | 'error' | 'sort_by';

const SCALAR: readonly ColumnKind[] = ['numeric', 'temporal', 'boolean', 'text'];
const NUMBER: readonly ColumnKind[] = ['numeric'];

/**
 * The roles of the ranked-effect, composition and distribution charts (docs/dashboards.md
 * "Ranked effects, dots, stacked bars, strips, ECDFs, densities and funnels").
 */
export function rankedDistributionRoles(
  chart: RankedDistributionChart,
  agg: ComponentAgg,
): Partial<Record<FigureRole, RoleSpec>> {
  switch (chart) {
    case 'lollipop':
      return {
        x: { kinds: SCALAR, required: true, label: 'Categories (one per row)' },
        y: { kinds: NUMBER, required: true, label: 'Effect' },
        error: { kinds: NUMBER, required: false, label: 'Error (whiskers: effect ± error)' },
      };
    case 'diverging_bar':
      return {
        x: { kinds: SCALAR, required: true, label: 'Categories (one per row)' },
        y: { kinds: NUMBER, required: true, label: 'Effect' },
      };
    case 'dot':
      return {
        y: { kinds: SCALAR, required: true, label: 'Terms (rows)' },
        x: { kinds: SCALAR, required: false, label: 'Groups (columns)' },
        size: { kinds: NUMBER, required: false, label: 'Dot size (rows counted without it)' },
        color: { kinds: NUMBER, required: false, label: 'Dot colour (e.g. adjusted p)' },
      };
    case 'stacked_bar':
      return {
        x: { kinds: SCALAR, required: true, label: 'Samples (bars)' },
        color: { kinds: SCALAR, required: true, label: 'Stacked by (taxa at a rank)' },
        y: { kinds: NUMBER, required: false, label: 'Abundance (rows counted without it)' },
        sort_by: { kinds: SCALAR, required: false, label: 'Order samples by' },
      };
    case 'strip':
      return {
        x: { kinds: NUMBER, required: true, label: 'Values' },
        y: { kinds: SCALAR, required: false, label: 'Strips (categories)' },
        color: { kinds: SCALAR, required: false },
      };
    case 'ecdf':
      return { x: { kinds: NUMBER, required: true, label: 'Values' }, color: { kinds: SCALAR, required: false } };
    case 'density_contour':
      return { x: { kinds: NUMBER, required: true }, y: { kinds: NUMBER, required: true } };
    case 'funnel': {
      const measure: readonly ColumnKind[] = agg === 'count_distinct' ? SCALAR : NUMBER;
      return {
        x: { kinds: SCALAR, required: true, label: 'Stages' },
        y: { kinds: measure, required: agg !== 'count', label: 'Value of each stage' },
      };
    }
  }
}
