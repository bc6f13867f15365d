import type { FilterPlan, Narrowing } from '../../analytics/index.js';
import type { DataCollectionQueries, SharedScalars, TableSnapshot } from '../../datacollections/queries.js';
import type { JsonValue } from '../../engine/duckdb.js';
import { answerKey } from './answer-keys.js';
import type { AnswerCache } from './cache.js';
import type { ComputedComponent } from './chosen.js';

/** What the shared passes read of a request's plan: its snapshots and its filters' narrowings. */
type ScalarPlan = { sources: ReadonlyMap<string, TableSnapshot>; narrowings: FilterPlan };

/** The answer cache (components already answered need no pass) and the queries that count. */
export interface SharedScalarsDeps {
  answers: Pick<AnswerCache, 'has'>;
  queries: Pick<DataCollectionQueries, 'scalarNeeds' | 'sharedScalars'>;
}

/**
 * The scalar aggregates (cards' numbers, counts, ranges) of the components a request will
 * compute, one scan per collection and filter set rather than one per component. A pass starts
 * with the answer; one that fails leaves each component to compute, and report, its own.
 */
export function shareScalars(plan: ScalarPlan, wanted: readonly ComputedComponent[], deps: SharedScalarsDeps) {
  const groups = new Map<string, { source: TableSnapshot; narrowing: Narrowing; ids: string[]; needs: Set<string> }>();
  for (const component of wanted) {
    if (component.type === 'multiqc') continue;
    const source = plan.sources.get(component.data_collection_id);
    if (source === undefined || deps.answers.has(answerKey(plan, component))) continue;
    const needs = deps.queries.scalarNeeds(source, component);
    if (needs.length === 0) continue;
    const { narrowing, key } = plan.narrowings.of(component);
    const id = `${component.data_collection_id}\u0000${key}`;
    const group = groups.get(id) ?? { source, narrowing, ids: [], needs: new Set<string>() };
    group.ids.push(component.component_id);
    for (const need of needs) group.needs.add(need);
    groups.set(id, group);
  }
  const lookups = new Map<string, SharedScalars>();
  const starts: (() => void)[] = [];
  for (const group of groups.values()) {
    // Alone, a component computes its own numbers in the same one scan.
    if (group.ids.length < 2) continue;
    let pass: Promise<Map<string, JsonValue>> | undefined;
    const values = () => {
      pass ??= deps.queries
        .sharedScalars(group.source, group.narrowing, [...group.needs])
        .catch(() => new Map<string, JsonValue>());
      return pass;
    };
    starts.push(() => void values());
    const lookup: SharedScalars = { get: async (expression) => (await values()).get(expression) };
    for (const id of group.ids) lookups.set(id, lookup);
  }
  return {
    lookups,
    start: () => {
      for (const start of starts) start();
    },
  };
}
