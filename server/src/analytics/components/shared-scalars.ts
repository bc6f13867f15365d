import type { JsonValue } from '../../engine/duckdb.js';
import type { Narrowing } from '../filters/narrowing.js';
import type { TableSnapshot } from '../sql/columns.js';
import { scalarRow, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';
import { mayNeedBoxSample } from './box.js';
import { cardSelects } from './cards.js';
import type { DataComponent } from './components.js';
import { binStatsSelects, scatterCountSelects } from './figure-rows.js';
import { type ComputeOptions, fitProblems } from './fit.js';

/**
 * The aggregates `component` will ask `scalarRow` for under the dashboard's filters (none when it
 * cannot be computed: it answers its own error).
 */
export function scalarNeeds(source: TableSnapshot, component: DataComponent, options: ComputeOptions): string[] {
  if (source.snapshot === null) return [];
  if (component.type === 'table') return ['count(*)'];
  if (component.type === 'image') return [];
  if (fitProblems(source.byName, component).length > 0) return [];
  if (component.type === 'card') return Object.values(cardSelects(source, component, options));
  if (component.type !== 'figure') return [];
  if (component.chart === 'scatter') return Object.values(scatterCountSelects(source, component));
  if (component.chart === 'histogram') return Object.values(binStatsSelects(source, component));
  if (component.chart === 'box' && mayNeedBoxSample(source, options)) return ['count(*)'];
  return [];
}

/** The aggregates `expressions` over the narrowed rows, in one scan. */
export async function sharedPass(
  reader: TableReader,
  source: TableSnapshot,
  narrowing: Narrowing,
  expressions: readonly string[],
): Promise<Map<string, JsonValue>> {
  const statement = new Statement();
  const selects = Object.fromEntries(expressions.map((expression, index) => [`s${index}`, expression]));
  return withNarrowedRows(reader, source, narrowing, statement, async (rows) => {
    const row = await scalarRow(rows, statement.params, selects);
    return new Map(expressions.map((expression, index) => [expression, row[`s${index}`] ?? null]));
  });
}
