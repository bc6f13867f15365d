import type { DashboardComponent, MultiqcComponent } from '@service/common';
import type { DataComponent } from '../../datacollections/queries.js';
import { DomainError, type FieldProblem } from '../../errors.js';

/** A component computed from its collection: a query over the table, or a MultiQC plot. */
export type ComputedComponent = DataComponent | MultiqcComponent;

/** The components asked for (all but text when none are named); an unknown id is a 400. */
export function chosen(
  components: readonly DashboardComponent[],
  ids: readonly string[] | undefined,
): ComputedComponent[] {
  const data = components.filter((component): component is ComputedComponent => component.type !== 'text');
  if (ids === undefined) return data;
  const known = new Set(components.map((component) => component.component_id));
  const problems: FieldProblem[] = ids.flatMap((id, index) =>
    known.has(id) ? [] : [{ path: `body.components[${index}]`, message: `the dashboard has no component ${id}` }],
  );
  if (problems.length > 0) throw new DomainError('validation_failed', 'unknown components', problems);
  const wanted = new Set(ids);
  return data.filter((component) => wanted.has(component.component_id));
}

/** Every collection the dashboard's components read (what `as_of` may name). */
export function readBy(components: readonly DashboardComponent[]): string[] {
  return components.flatMap((component) => (component.type === 'text' ? [] : [component.data_collection_id]));
}
