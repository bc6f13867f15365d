import type { DashboardComponent } from '@service/common';

/**
 * "A dashboard never shows more of a project than its editors may read" (docs/architecture.md "Dashboards").
 * Someone who edits a dashboard but may not read its project (the dashboard alone was shared with
 * them, or they duplicated a public dashboard of a private project) reads the project only through
 * what the dashboard shows. So a save by them may only show collections the dashboard already
 * shows, and of each collection only columns the dashboard already shows: a column counts as shown
 * when any component on that collection reads it (cross-filtering between components of one
 * collection already relates their columns to each other), and a table without a column list
 * shows all of them.
 */

/** What the dashboard shows of each collection: its column names, or `'all'`. */
type Shown = Map<string, Set<string> | 'all'>;

/** What one component reads: a collection and its columns (`'all'`: every column). */
interface Reading {
  collection: string;
  columns: readonly string[] | 'all';
}

function readingOf(component: DashboardComponent): Reading | null {
  switch (component.type) {
    case 'text':
    case 'section':
      return null;
    case 'table':
      // A sort key orders the rows by that column: it reads the column even when it is not shown.
      return {
        collection: component.data_collection_id,
        columns: component.columns ? [...component.columns, ...component.sort.map((key) => key.column)] : 'all',
      };
    case 'figure': {
      const { x, y, color, size } = component;
      return { collection: component.data_collection_id, columns: [x, y, color, size].filter((c) => c !== undefined) };
    }
    case 'card':
      return { collection: component.data_collection_id, columns: component.column ? [component.column] : [] };
    case 'interactive':
      return { collection: component.data_collection_id, columns: [component.column] };
    case 'image':
      // A gallery shows the images themselves, beyond the table's columns.
      return { collection: component.data_collection_id, columns: 'all' };
    case 'multiqc':
      // A plot shows the reports' own data, beyond the table's columns.
      return { collection: component.data_collection_id, columns: 'all' };
  }
}

function shownBy(components: readonly DashboardComponent[]): Shown {
  const shown: Shown = new Map();
  for (const reading of components.map(readingOf)) {
    if (reading === null) continue;
    const have = shown.get(reading.collection) ?? new Set<string>();
    if (have === 'all' || reading.columns === 'all') shown.set(reading.collection, 'all');
    else shown.set(reading.collection, new Set([...have, ...reading.columns]));
  }
  return shown;
}

/**
 * What `next` reads that `current` does not show, in words (`[]`: nothing, the save keeps to
 * what the dashboard shows).
 */
export function widenings(current: readonly DashboardComponent[], next: readonly DashboardComponent[]): string[] {
  const shown = shownBy(current);
  const problems: string[] = [];
  for (const component of next) {
    const reading = readingOf(component);
    if (reading === null) continue;
    const have = shown.get(reading.collection);
    const id = component.component_id;
    if (have === undefined) {
      problems.push(`component '${id}' reads a collection this dashboard does not show`);
    } else if (have !== 'all') {
      const columns = reading.columns === 'all' ? null : reading.columns.filter((column) => !have.has(column));
      if (columns === null) problems.push(`component '${id}' shows every column of its collection`);
      else if (columns.length > 0) problems.push(`component '${id}' reads column(s) not shown: ${columns.join(', ')}`);
    }
  }
  return problems;
}
