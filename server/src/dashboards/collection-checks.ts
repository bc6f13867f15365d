import { type DashboardComponent, readsCollection } from '@service/common';
import type { DataCollectionQueries, TableSnapshot } from '../datacollections/queries.js';
import type { DataCollectionsTable } from '../db/tables.js';
import { DomainError, type FieldProblem } from '../errors.js';
import { type TreeFiles, treeProblems } from './data/tree-files.js';
import type { DashboardsRepository } from './repository.js';

/** What the checks of a dashboard's collections read. */
export interface CollectionChecks {
  repository: Pick<DashboardsRepository, 'collectionRowsOfProject'>;
  queries: Pick<DataCollectionQueries, 'fitProblems' | 'dataProblems' | 'snapshotOf'>;
  trees: Pick<TreeFiles, 'treeOf'>;
}

/**
 * Components may only show data collections of the dashboard's project, and the columns a
 * figure, card or filter reads must exist in its collection's table with a type it can use
 * (a collection without a table yet is checked when its data is asked for). Paths start at the
 * content (`components[2].x`).
 */
export async function collectionProblems(
  checks: CollectionChecks,
  projectId: string,
  components: readonly DashboardComponent[],
): Promise<FieldProblem[]> {
  const wanted = components.filter(readsCollection).map((component) => component.data_collection_id);
  const rows = await checks.repository.collectionRowsOfProject(projectId, wanted);
  const known = new Map(rows.map((row) => [row.id, row]));
  const snapshots = new Map<string, Promise<TableSnapshot>>();
  const snapshotOf = (row: DataCollectionsTable) => {
    const loaded = snapshots.get(row.id) ?? checks.queries.snapshotOf(row);
    snapshots.set(row.id, loaded);
    return loaded;
  };
  const problems: FieldProblem[] = [];
  for (const [index, component] of components.entries()) {
    if (!readsCollection(component)) continue;
    const at = `components[${index}]`;
    const row = known.get(component.data_collection_id);
    if (row === undefined) {
      problems.push({ path: `${at}.data_collection_id`, message: 'no data collection of this project has this id' });
      continue;
    }
    if (component.type === 'multiqc') {
      if (row.type !== 'multiqc') {
        problems.push({
          path: `${at}.data_collection_id`,
          message: 'a multiqc component reads a MultiQC collection (type multiqc), not a table',
        });
      }
      continue;
    }
    if (component.type === 'image') {
      // A gallery reads an image collection (docs/dashboards.md "Images").
      if (row.type !== 'image') {
        const message = `an image component reads an image collection (type image), not a ${row.type} collection`;
        problems.push({ path: `${at}.data_collection_id`, message });
      }
      continue;
    }
    // A table reads any of its columns; only those it colours must hold numbers, and its select_by exist.
    if (component.type === 'table' && component.color_scales === undefined && component.select_by === undefined)
      continue;
    // A collection not yet ingested has neither a table nor files: its columns and its tree are
    // checked once it has (POST /projects/from-template places its dashboards before ingesting).
    const snapshot = await snapshotOf(row);
    if (snapshot.snapshot === null) continue;
    if (component.type === 'figure' && component.chart === 'tree') {
      problems.push(...(await treeProblems(checks.trees, row, component, at)));
    }
    const fit = checks.queries.fitProblems(snapshot, component);
    // The table is read only for components whose columns fit.
    const found =
      fit.length > 0 || component.type === 'table' ? fit : await checks.queries.dataProblems(snapshot, component);
    for (const problem of found) {
      problems.push({ path: `${at}.${problem.field}`, message: problem.message });
    }
  }
  return problems;
}

/** Refuses (400, paths under `body.`) components whose collections or columns do not fit. */
export async function checkCollections(
  checks: CollectionChecks,
  projectId: string,
  components: readonly DashboardComponent[],
): Promise<void> {
  const problems = await collectionProblems(checks, projectId, components);
  if (problems.length > 0) {
    throw new DomainError(
      'validation_failed',
      "components may only show the project's data collections, with columns their tables have",
      problems.map((problem) => ({ ...problem, path: `body.${problem.path}` })),
    );
  }
}
