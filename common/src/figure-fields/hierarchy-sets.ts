import { z } from 'zod';
import { columnNameSchema } from '../queries.js';

/**
 * The fields of the hierarchy, flow and set charts (docs/dashboards.md "Sunburst, treemap, sankey
 * and UpSet"): `sunburst` and `treemap` nest `levels` (an ordered list of columns) sized by `value`
 * (a row count without it); `sankey` draws flows between successive `levels`; `upset` intersects
 * `sets` (0/1 or boolean columns), or the sets an `item` column's values are paired with in a `set` column.
 */

export const HIERARCHY_SET_CHARTS = ['sunburst', 'treemap', 'sankey', 'upset'] as const;
export type HierarchySetChart = (typeof HIERARCHY_SET_CHARTS)[number];

/** Columns a hierarchy or sankey nests at most. */
export const MAX_LEVELS = 8;
/** Set columns an UpSet intersects at most (each row's sets fit in one integer). */
export const MAX_SET_COLUMNS = 30;
/** Sunburst, treemap, sankey: values each level keeps before the rest fold into "Other" (`max_categories`). */
export const DEFAULT_LEVEL_BUDGET = 50;
/** UpSet: intersections drawn before the smallest are left out (the answer says how many). */
export const DEFAULT_MAX_INTERSECTIONS = 40;

export const hierarchySetFields = {
  /** Sunburst, treemap, sankey: the columns from the outermost level (or the first stage) in. */
  levels: z.array(columnNameSchema).min(1).max(MAX_LEVELS).optional(),
  /** Sunburst, treemap, sankey: the numeric column summed per node or flow (rows counted without it). */
  value: columnNameSchema.optional(),
  /** UpSet: one 0/1 or boolean column per set (a row belongs to the sets whose column is true or not 0). */
  sets: z.array(columnNameSchema).min(2).max(MAX_SET_COLUMNS).optional(),
  /** UpSet of item–set pairs: the item column and the column naming one of its sets per row. */
  item: columnNameSchema.optional(),
  set: columnNameSchema.optional(),
  /** UpSet: intersections drawn (default 40); the rest are counted in `left_out`. */
  max_intersections: z.number().int().min(1).max(1000).optional(),
};

interface HierarchySetFigure {
  chart: string;
  levels?: string[] | undefined;
  value?: string | undefined;
  sets?: string[] | undefined;
  item?: string | undefined;
  set?: string | undefined;
}

export const isHierarchySetChart = (chart: string): chart is HierarchySetChart =>
  (HIERARCHY_SET_CHARTS as readonly string[]).includes(chart);

/** The save-time checks of these charts' fields (called from the figure schema's superRefine). */
export function checkHierarchySetFields(figure: HierarchySetFigure, context: z.RefinementCtx): void {
  const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  const repeated = (field: 'levels' | 'sets') => {
    const names = figure[field] ?? [];
    const twice = names.find((name, index) => names.indexOf(name) !== index);
    if (twice !== undefined) problem(field, `${JSON.stringify(twice)} is listed twice`);
  };
  switch (figure.chart) {
    case 'sunburst':
    case 'treemap':
      if (figure.levels === undefined)
        problem('levels', `a ${figure.chart} needs levels (its columns, outermost first)`);
      repeated('levels');
      break;
    case 'sankey':
      if ((figure.levels?.length ?? 0) < 2) problem('levels', 'a sankey needs levels: at least two columns');
      repeated('levels');
      break;
    case 'upset': {
      const pairs = figure.item !== undefined || figure.set !== undefined;
      if (figure.sets === undefined && !pairs) {
        problem('sets', 'an UpSet plot needs sets (0/1 or boolean columns), or item and set columns');
      } else if (figure.sets !== undefined && pairs) {
        problem('sets', 'an UpSet plot reads either sets or item and set columns, not both');
      } else if (pairs) {
        if (figure.item === undefined) problem('item', 'an UpSet plot of item–set pairs needs item');
        if (figure.set === undefined) problem('set', 'an UpSet plot of item–set pairs needs set');
        if (figure.item !== undefined && figure.item === figure.set) problem('set', 'set must differ from item');
      }
      repeated('sets');
      break;
    }
  }
}

/** A value of a node's path or a flow's end, as the table holds it (null included). */
const pathValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * The answers of these charts, besides their `columns` and `rows` (which hold the same as a table:
 * the CSV and the accessible description read them). Values folded into "other" show as `"Other"`
 * and their node or link says `other: true`.
 */
export const hierarchySetDataFields = {
  /** Sunburst, treemap: every prefix of every row's path with its value (a parent's the sum of its children's). */
  nodes: z
    .array(z.object({ path: z.array(pathValueSchema), value: z.number(), other: z.boolean().optional() }))
    .optional(),
  /** Sankey: the flows between successive levels (`level` is the index of `from`'s column). */
  links: z
    .array(
      z.object({
        level: z.number().int(),
        from: pathValueSchema,
        to: pathValueSchema,
        value: z.number(),
        other: z.boolean().optional(),
      }),
    )
    .optional(),
  /** Sunburst, treemap, sankey: per level, distinct values folded into "other" (only levels that folded). */
  folded: z.array(z.object({ level: z.number().int(), values: z.number().int() })).optional(),
  /** UpSet: rows (or items) in each set. */
  set_sizes: z.record(z.string(), z.number().int()).optional(),
  /** UpSet: rows (items) by the exact sets they belong to, largest first. */
  intersections: z.array(z.object({ sets: z.array(z.string()), count: z.number().int() })).optional(),
  /** UpSet: intersections beyond `max_intersections` left out, and the rows they hold. */
  left_out: z.object({ intersections: z.number().int(), rows: z.number().int() }).optional(),
};

/**
 * Why a click filter's value does not fit one of these charts, or null when it does:
 * sunburst/treemap a node's path (1 to `levels` values); sankey `[level, value]` (a node) or
 * `[level, from, to]` (a flow); UpSet the names of an intersection's sets (its set columns', or
 * of item–set pairs the `set` values as text).
 */
export function hierarchySetFilterProblem(figure: HierarchySetFigure, value: unknown): string | null {
  if (!Array.isArray(value)) return `a ${figure.chart} chart filters by a list`;
  const levels = figure.levels?.length ?? 0;
  switch (figure.chart) {
    case 'sunburst':
    case 'treemap':
      return value.length >= 1 && value.length <= Math.max(1, levels)
        ? null
        : `a ${figure.chart} filters by a node's path: 1 to ${levels} values, outermost first`;
    case 'sankey': {
      const [level] = value;
      const last = value.length === 2 ? levels - 1 : levels - 2;
      const fits =
        (value.length === 2 || value.length === 3) &&
        Number.isInteger(level) &&
        (level as number) >= 0 &&
        (level as number) <= last &&
        value.slice(1).every((item) => item !== null);
      return fits ? null : 'a sankey filters by [level, value] (a node) or [level, from, to] (a flow)';
    }
    case 'upset': {
      if (figure.sets === undefined) {
        const names =
          value.length >= 1 &&
          value.every((item) => typeof item === 'string' && item !== '') &&
          new Set(value).size === value.length;
        return names ? null : 'an UpSet plot of item–set pairs filters by the names of an intersection’s sets';
      }
      const sets = figure.sets;
      const fits =
        value.length >= 1 &&
        value.every((item) => typeof item === 'string' && sets.includes(item)) &&
        new Set(value).size === value.length;
      return fits ? null : 'an UpSet plot filters by the names of an intersection’s sets (its set columns)';
    }
    default:
      return `a ${figure.chart} chart cannot filter other components`;
  }
}
