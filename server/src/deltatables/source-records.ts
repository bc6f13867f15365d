import type { Kysely } from 'kysely';
import type { FilesTable, Tables } from '../db/tables.js';

/**
 * Which content (sha256) of each source file a data collection's table holds, so an upsert reads
 * again only the files that changed.
 */
export async function recordedSources(db: Kysely<Tables>, dataCollectionId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('delta_sources')
    .select(['file_id', 'sha256'])
    .where('data_collection_id', '=', dataCollectionId)
    .execute();
  return new Map(rows.map((source) => [source.file_id, source.sha256]));
}

/**
 * Remembers which content of each source file the table now holds: `taken` are the files read
 * (empty ones included: they hold no rows but count as taken in, so they are not read again),
 * `gone` the files whose rows were dropped; `overwrite` forgets every earlier record first.
 */
export async function recordSources(
  db: Kysely<Tables>,
  dataCollectionId: string,
  taken: readonly Pick<FilesTable, 'id' | 'sha256'>[],
  gone: readonly string[],
  overwrite: boolean,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (overwrite) await trx.deleteFrom('delta_sources').where('data_collection_id', '=', dataCollectionId).execute();
    if (gone.length > 0) {
      await trx
        .deleteFrom('delta_sources')
        .where('data_collection_id', '=', dataCollectionId)
        .where('file_id', 'in', [...gone])
        .execute();
    }
    for (const file of taken) {
      await trx
        .insertInto('delta_sources')
        .values({ data_collection_id: dataCollectionId, file_id: file.id, sha256: file.sha256 })
        .onConflict((oc) => oc.columns(['data_collection_id', 'file_id']).doUpdateSet({ sha256: file.sha256 }))
        .execute();
    }
  });
}
