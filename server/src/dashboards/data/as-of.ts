import type { AsOf } from '@service/common';
import { invalid } from '../../analytics/index.js';
import { type DeltaTable, DeltaTableNotFound, parseCommit } from '../../engine/delta/index.js';
import { commitKey } from '../../engine/delta/log-files.js';
import type { SnapshotCache } from '../../engine/snapshot-cache.js';
import { ObjectNotFound, type ObjectStorage } from '../../storage/storage.js';

export interface AsOfDeps {
  tableOf(dataCollectionId: string): DeltaTable;
  snapshots: Pick<SnapshotCache, 'get'>;
  storage: Pick<ObjectStorage, 'getBuffer'>;
}

/**
 * Which table version to read per collection: a version, `undefined` for the latest, or `null`
 * for "no table": the collection as it was at a time before its first commit.
 */
export type ReadVersions = Map<string, number | null | undefined>;

/**
 * Time travel for a dashboard (`as_of`, docs/architecture.md "Dashboards"). A map names versions of the
 * collections the dashboard reads (others read their latest; an id the dashboard doesn't read →
 * 400 at `path.<id>`; whether the version exists is the reader's to say: 404). A timestamp reads
 * every collection at its last commit at or before it, by the commit times the versions route
 * shows; a collection with no commit by then reads as having no table, as it was then (so the
 * dashboard shows what a reader saw at that moment rather than refusing the whole request).
 */
export async function versionsAsOf(
  deps: AsOfDeps,
  asOf: AsOf | undefined,
  collections: readonly string[],
  path: string,
  /** The collections a map may name (the dashboard's); `collections` by default. */
  known: readonly string[] = collections,
): Promise<ReadVersions> {
  const versions: ReadVersions = new Map(collections.map((id) => [id, undefined]));
  if (asOf === undefined) return versions;
  if (typeof asOf !== 'string') {
    const named = new Set(known);
    for (const [id, version] of Object.entries(asOf)) {
      if (!named.has(id)) throw invalid(`${path}.${id}`, 'the dashboard reads no data collection with this id');
      if (versions.has(id)) versions.set(id, version);
    }
    return versions;
  }
  const at = Date.parse(asOf);
  await Promise.all(collections.map(async (id) => versions.set(id, await versionAt(deps, deps.tableOf(id), at))));
  return versions;
}

/** The last version committed at or before `at` (ms), null when there was none yet. */
async function versionAt(deps: AsOfDeps, table: DeltaTable, at: number): Promise<number | null> {
  let latest: Awaited<ReturnType<AsOfDeps['snapshots']['get']>>;
  try {
    latest = await deps.snapshots.get(table);
  } catch (error) {
    if (error instanceof DeltaTableNotFound) return null;
    throw error;
  }
  const { snapshot } = latest;
  if (snapshot.timestamp <= at) return snapshot.version;
  // The commits since the last checkpoint come with the snapshot; older ones are read one by one.
  const recent = [...snapshot.commits].reverse();
  for (const commit of recent) if (commit.timestamp <= at) return commit.version;
  const oldestKnown = recent.at(-1)?.version ?? snapshot.version;
  const older = (await table.history()).filter((entry) => entry.version < oldestKnown).reverse();
  for (const entry of older) {
    if ((await commitTimestamp(deps.storage, table, entry.version, entry.modifiedAt)) <= at) return entry.version;
  }
  return null;
}

const timestamps = new Map<string, number>();
const TIMESTAMPS_KEPT = 10_000;

/**
 * When a version was committed: its commitInfo time, else its log file's. Commit files never
 * change, but a table written again from scratch reuses version numbers, so the file's own time
 * is part of what is remembered.
 */
async function commitTimestamp(
  storage: AsOfDeps['storage'],
  table: DeltaTable,
  version: number,
  modifiedAt: Date,
): Promise<number> {
  const key = commitKey(table.root, version);
  const memo = `${key}\0${modifiedAt.getTime()}`;
  const known = timestamps.get(memo);
  if (known !== undefined) return known;
  let timestamp = modifiedAt.getTime();
  try {
    for (const action of parseCommit((await storage.getBuffer(key)).toString('utf8'), key)) {
      if ('commitInfo' in action && typeof action.commitInfo.timestamp === 'number') {
        timestamp = action.commitInfo.timestamp;
      }
    }
  } catch (error) {
    // Cleaned up since the listing: the listing's time is all there is.
    if (!(error instanceof ObjectNotFound)) throw error;
  }
  if (timestamps.size >= TIMESTAMPS_KEPT) timestamps.delete(timestamps.keys().next().value as string);
  timestamps.set(memo, timestamp);
  return timestamp;
}
