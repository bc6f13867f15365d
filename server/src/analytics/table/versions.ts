import type { TableVersionEntry } from '@service/common';
import { type DeltaTable, type LogAction, parseCommit, parseStats } from '../../engine/delta/index.js';
import { commitKey } from '../../engine/delta/log-files.js';
import { ObjectNotFound, type ObjectStorage } from '../../storage/storage.js';

/** The table's commits, newest first. */
export async function tableVersions(
  table: DeltaTable,
  storage: Pick<ObjectStorage, 'getBuffer'>,
  page: { limit: number; skip: number },
): Promise<{ items: TableVersionEntry[]; total: number; limit: number; skip: number }> {
  const history = (await table.history()).reverse();
  const items = await Promise.all(
    history.slice(page.skip, page.skip + page.limit).map(async (entry): Promise<TableVersionEntry> => {
      const key = commitKey(table.root, entry.version);
      let actions: LogAction[] = [];
      try {
        actions = parseCommit((await storage.getBuffer(key)).toString('utf8'), key);
      } catch (error) {
        // Cleaned up since the listing: report what the listing knew.
        if (!(error instanceof ObjectNotFound)) throw error;
      }
      let timestamp = entry.modifiedAt.getTime();
      let operation: string | null = null;
      let rows: number | null = null;
      let filesAdded = 0;
      let filesRemoved = 0;
      let statsRows: number | null = 0;
      for (const action of actions) {
        if ('commitInfo' in action) {
          const info = action.commitInfo;
          if (typeof info.timestamp === 'number') timestamp = info.timestamp;
          if (typeof info.operation === 'string') operation = info.operation;
          const metrics = info.operationMetrics;
          if (typeof metrics === 'object' && metrics !== null && 'numOutputRows' in metrics) {
            const value = Number(metrics.numOutputRows);
            if (Number.isSafeInteger(value)) rows = value;
          }
        } else if ('add' in action) {
          filesAdded++;
          const records = parseStats(action.add.stats)?.numRecords;
          statsRows = typeof records === 'number' && statsRows !== null ? statsRows + records : null;
        } else if ('remove' in action) {
          filesRemoved++;
        }
      }
      return {
        version: entry.version,
        timestamp: new Date(timestamp).toISOString(),
        operation,
        rows: rows ?? statsRows,
        files_added: filesAdded,
        files_removed: filesRemoved,
      };
    }),
  );
  return { items, total: history.length, limit: page.limit, skip: page.skip };
}
