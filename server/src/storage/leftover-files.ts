import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Work files a process writes under the data directory and removes itself when it finishes:
 * DuckDB's spill files, upsert work directories, Delta checkpoints being written, downloads being
 * sent. A process killed mid-run leaves them behind; the vacuum removes the ones older than its
 * retention, which no running process still uses.
 */
export interface LeftoverPlace {
  directory: string;
  /** Which entries of the directory are work files; every entry when absent. */
  entries?: RegExp;
}

export interface Leftover {
  path: string;
  size: number;
}

/** The newest modification time and the total size of a file or a whole directory tree. */
async function ageAndSize(path: string): Promise<{ newest: number; size: number }> {
  const info = await stat(path);
  if (!info.isDirectory()) return { newest: info.mtimeMs, size: info.size };
  let newest = info.mtimeMs;
  let size = 0;
  for (const entry of await readdir(path)) {
    const inner = await ageAndSize(join(path, entry)).catch(() => ({ newest: Date.now(), size: 0 }));
    newest = Math.max(newest, inner.newest);
    size += inner.size;
  }
  return { newest, size };
}

/**
 * Removes (unless `dryRun`) the entries of `places` whose newest file was last written before
 * `before` (ms): a directory still being written to has a recent file, so it stays.
 */
export async function removeLeftovers(
  places: readonly LeftoverPlace[],
  before: number,
  dryRun: boolean,
): Promise<Leftover[]> {
  const removed: Leftover[] = [];
  for (const place of places) {
    const entries = await readdir(place.directory).catch(() => [] as string[]);
    for (const name of entries) {
      if (place.entries !== undefined && !place.entries.test(name)) continue;
      const path = join(place.directory, name);
      // Gone meanwhile (its process finished it): nothing to do.
      const found = await ageAndSize(path).catch(() => null);
      if (found === null || found.newest >= before) continue;
      if (!dryRun) await rm(path, { recursive: true, force: true });
      removed.push({ path, size: found.size });
    }
  }
  return removed;
}
