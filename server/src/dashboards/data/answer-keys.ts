import type { FilterPlan } from '../../analytics/index.js';
import type { TableSnapshot } from '../../datacollections/queries.js';
import type { DataCollectionsTable } from '../../db/tables.js';
import type { AsOfDeps } from './as-of.js';
import type { AnswerKey } from './cache.js';
import type { ComputedComponent } from './chosen.js';

/** What the keys read of a request's plan: its snapshots and its filters' narrowings. */
type DataPlan = { sources: ReadonlyMap<string, TableSnapshot>; narrowings: FilterPlan };

/** A collection read as it was before its table's first commit. */
export function noTable(row: DataCollectionsTable, deps: Pick<AsOfDeps, 'tableOf'>): TableSnapshot {
  return { row, table: deps.tableOf(row.id), snapshot: null, version: null, columns: [], byName: new Map() };
}

/** What a component's cached answer is kept under: the tables read and the filters reaching it. */
export function answerKey(plan: DataPlan, component: ComputedComponent): AnswerKey {
  const { key, collections } = plan.narrowings.of(component);
  // A range widget's bounds are the whole table's: one answer whatever the filters.
  const whole = component.type === 'interactive' && (component.widget === 'range' || component.widget === 'date_range');
  return { component, tables: tablesRead(plan, component, whole ? [] : collections), filters: whole ? '' : key };
}

/** The snapshots a component's answer comes from: its collection's, and the joined ones its filters read. */
export function tablesRead(plan: DataPlan, component: ComputedComponent, joined: readonly string[]) {
  return [component.data_collection_id, ...joined].flatMap((collection) => {
    const source = plan.sources.get(collection);
    return source === undefined ? [] : [{ collection, source }];
  });
}
