import type { DashboardComponent, DashboardVersions } from '@service/common';
import type { Kysely } from 'kysely';
import type { DataCollectionQueries } from '../../datacollections/queries.js';
import type { Tables } from '../../db/tables.js';
import { dataCollectionRows } from '../../tables/data-collections.js';

/** Commits listed per collection: the version picker shows the recent ones. */
const VERSIONS_LISTED = 100;

/**
 * The commits of every collection a dashboard's components read, in the order the components
 * first name them (docs/architecture.md "Dashboards", `GET /dashboards/{id}/versions`). Authorized by the
 * dashboard alone, as its rows are: collections of other projects are never listed.
 */
export async function dashboardVersions(
  db: Kysely<Tables>,
  queries: Pick<DataCollectionQueries, 'componentVersions'>,
  projectId: string,
  components: readonly DashboardComponent[],
): Promise<DashboardVersions> {
  const ids = [
    ...new Set(
      components.flatMap((component) => ('data_collection_id' in component ? [component.data_collection_id] : [])),
    ),
  ];
  if (ids.length === 0) return { collections: [] };
  const rows = await dataCollectionRows.someOfProject(db, projectId, ids);
  const names = new Map(rows.map((row) => [row.id, row.tag]));
  const collections = await Promise.all(
    ids.flatMap((id) => {
      const name = names.get(id);
      if (name === undefined) return [];
      return [
        queries
          .componentVersions(id, { limit: VERSIONS_LISTED, skip: 0 })
          .then(({ items }) => ({ data_collection_id: id, name, versions: items })),
      ];
    }),
  );
  return { collections };
}
