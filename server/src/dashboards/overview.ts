import {
  correlatedCandidates,
  type DashboardComponent,
  type DashboardTab,
  dashboardComponentSchema,
  dashboardTabsSchema,
  detectJoins,
  joinName,
  keyCandidates,
  type LayoutItem,
  type OverviewCollection,
  type OverviewJoin,
  overviewComponents,
} from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { DataCollectionQueries } from '../datacollections/queries.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { MultiqcService } from '../multiqc/service.js';
import type { Actor } from '../policy/actor.js';
import { decodeJoinColumns, encodeJoinColumns, joinRows } from '../tables/joins.js';
import type { DashboardsRepository } from './repository.js';

/** Distinct values of each candidate join key read to see whether two collections share them. */
const KEY_SAMPLE = 200;

export interface OverviewDeps {
  database: Pick<Database, 'db'>;
  repository: Pick<DashboardsRepository, 'collectionsOfProject'>;
  queries: Pick<DataCollectionQueries, 'summary' | 'profile'>;
  multiqc: Pick<MultiqcService, 'summary'>;
}

/**
 * The tabs, components and layout of a project's generated overview (`template: "overview"`), from
 * each collection's column statistics, correlations and key samples (all computed in DuckDB), read
 * as the actor (an editor of the project). Joins it detects between collections that share a key
 * column are declared in the project (docs/dashboards.md "Overview dashboards"), so its filters
 * cross collections.
 */
export async function projectOverview(
  deps: OverviewDeps,
  actor: Actor,
  project: { id: string; name: string; description: string },
): Promise<{ tabs: DashboardTab[]; components: DashboardComponent[]; layout: LayoutItem[] }> {
  const collections: OverviewCollection[] = [];
  for (const { id, tag, type } of await deps.repository.collectionsOfProject(project.id)) {
    const summary = await deps.queries.summary(actor, id);
    const multiqc = type === 'multiqc' ? { multiqc: await deps.multiqc.summary(actor, id) } : {};
    collections.push({
      data_collection_id: id,
      tag,
      type,
      summary: summary.version === null ? null : summary,
      ...multiqc,
    });
  }
  const keys = keyCandidates(
    collections.flatMap((collection) =>
      collection.summary === null
        ? []
        : [
            {
              ...collection,
              rows: collection.summary.rows,
              image: collection.type === 'image',
              columns: collection.summary.columns,
            },
          ],
    ),
  );
  const samples: { data_collection_id: string; column: string; values: string[] }[] = [];
  for (const collection of collections) {
    if (collection.summary === null) continue;
    const { data_collection_id: id } = collection;
    const correlate =
      collection.type === 'table' ? correlatedCandidates(collection.summary.columns, collection.summary.rows) : [];
    const mine = keys.filter((key) => key.data_collection_id === id).map((key) => key.column);
    const profiled = await deps.queries.profile(actor, id, { correlate, keys: mine, keySample: KEY_SAMPLE });
    collection.correlations = profiled.correlations;
    for (const [column, values] of Object.entries(profiled.keys))
      samples.push({ data_collection_id: id, column, values });
  }
  const joins = await declareJoins(deps.database, project.id, collections, samples);
  const { tabs, components, layout } = overviewComponents(project, collections, joins);
  // Through the shared schemas, which fill the defaults a stored dashboard carries.
  return {
    tabs: dashboardTabsSchema.parse(tabs),
    components: dashboardComponentSchema.array().parse(components),
    layout,
  };
}

/**
 * Declares the joins detected between the collections (named `overview_<left>_<right>`), and
 * answers them with the project's joins already declared on one column of the same name.
 */
async function declareJoins(
  database: Pick<Database, 'db'>,
  projectId: string,
  collections: readonly OverviewCollection[],
  samples: Parameters<typeof detectJoins>[0],
): Promise<OverviewJoin[]> {
  const declared = await joinRows.ofProject(database.db, projectId);
  const existing = declared.flatMap((row): OverviewJoin[] => {
    const [pair, ...more] = decodeJoinColumns(row.on_columns);
    if (pair === undefined || more.length > 0 || pair[0] !== pair[1]) return [];
    return [{ left: row.left_data_collection_id, right: row.right_data_collection_id, column: pair[0] }];
  });
  const pairs = declared.map((row) => ({ left: row.left_data_collection_id, right: row.right_data_collection_id }));
  const tagOf = new Map(collections.map((collection) => [collection.data_collection_id, collection.tag]));
  const added: OverviewJoin[] = [];
  for (const join of detectJoins(samples, pairs)) {
    try {
      await joinRows.insert(database.db, {
        id: uuidv7(),
        project_id: projectId,
        name: joinName(tagOf.get(join.left) ?? join.left, tagOf.get(join.right) ?? join.right),
        left_data_collection_id: join.left,
        right_data_collection_id: join.right,
        on_columns: encodeJoinColumns([[join.column, join.column]]),
        how: 'inner',
      });
      added.push(join);
    } catch (error) {
      // A join of that name exists already (declared by hand since): keep the project's own.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return [...existing, ...added];
}
