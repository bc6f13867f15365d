import {
  type DashboardComponent,
  type DashboardTab,
  type MultiqcComponent,
  readsCollection,
  tabOf,
} from '@service/common';
import type { DataComponent } from '../../datacollections/queries.js';
import { DomainError, type FieldProblem } from '../../errors.js';

/** A component computed from its collection: a query over the table, or a MultiQC plot. */
export type ComputedComponent = DataComponent | MultiqcComponent;

/**
 * The components asked for (all that read a collection when none are named), in `tab` when one is named; an
 * unknown id or tab is a 400.
 */
export function chosen(
  components: readonly DashboardComponent[],
  ids: readonly string[] | undefined,
  tab?: { tabs: readonly DashboardTab[]; tab_id: string | undefined },
): ComputedComponent[] {
  const data: ComputedComponent[] = inTab(components, tab).filter(readsCollection);
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
  return components.filter(readsCollection).map((component) => component.data_collection_id);
}

/**
 * The components of the named tab; all of them without a tab. Another tab's filter widgets are not
 * computed: their filters apply on every tab from the request's `filters`, and their chips need no
 * options; the widget's options come with its own tab.
 */
function inTab(
  components: readonly DashboardComponent[],
  tab: { tabs: readonly DashboardTab[]; tab_id: string | undefined } | undefined,
): readonly DashboardComponent[] {
  if (tab?.tab_id === undefined) return components;
  const { tabs, tab_id } = tab;
  if (!tabs.some((known) => known.tab_id === tab_id)) {
    const names =
      tabs.length === 0 ? 'the dashboard has no tabs' : `tabs: ${tabs.map((known) => known.tab_id).join(', ')}`;
    throw new DomainError('validation_failed', 'unknown tab', [
      { path: 'body.tab_id', message: `the dashboard has no tab ${tab_id} (${names})` },
    ]);
  }
  return components.filter((component) => tabOf(component, tabs) === tab_id);
}
