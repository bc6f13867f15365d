import { createHash } from 'node:crypto';
import { constants, type Dirent, type Stats } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isInsideAllowedRoots } from '../locations/allowed-roots.js';

/**
 * File-system side of a scan: the allowed roots as real paths, a walk that never leaves them
 * through a symbolic link, and streamed hashing.
 */

/** A short, path-free reason for a file-system error, safe to show next to the path it concerns. */
export function fsReason(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case 'ENOENT':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'is not a folder';
    case 'ELOOP':
      return 'is a symbolic link or loops through too many of them';
    case 'ENOTFILE':
      return 'is not a regular file';
    default:
      return typeof code === 'string' ? `cannot be read (${code})` : 'cannot be read';
  }
}

export const isHidden = (name: string): boolean => name.startsWith('.');

/** Where a symbolic link leads, if it stays inside the roots: its real path and what it is. */
export type LinkTarget = { ok: true; real: string; stats: Stats } | { ok: false; reason: string };

export async function followLink(path: string, roots: readonly string[]): Promise<LinkTarget> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    return { ok: false, reason: `symbolic link target ${fsReason(error)}` };
  }
  if (!isInsideAllowedRoots(real, roots)) return { ok: false, reason: 'symbolic link leads outside the allowed roots' };
  try {
    return { ok: true, real, stats: await stat(real) };
  } catch (error) {
    return { ok: false, reason: `symbolic link target ${fsReason(error)}` };
  }
}

/** One thing the walk of a run folder found. */
export type WalkItem =
  /** A regular file: `relative` uses `/`; `logical` is the path under the declared location; `real` is what to open. */
  | { kind: 'file'; relative: string; logical: string; real: string; stats: Stats }
  | { kind: 'skipped'; path: string; reason: string }
  /** A folder that could not be listed: what was registered under it stays as it is. */
  | { kind: 'unreadable'; relative: string; path: string; reason: string };

/**
 * Walks a run folder depth-first, in name order. Hidden entries are left out; symbolic links are
 * followed only while their real path stays inside `roots` (and never into a folder being walked).
 * `realDir` is the run folder's real path, `logicalDir` its path under the declared location.
 */
export async function* walkRun(
  realDir: string,
  logicalDir: string,
  roots: readonly string[],
): AsyncGenerator<WalkItem, void, undefined> {
  yield* walkFolder(realDir, logicalDir, '', roots, new Set([realDir]));
}

async function* walkFolder(
  realDir: string,
  logicalDir: string,
  prefix: string,
  roots: readonly string[],
  ancestors: ReadonlySet<string>,
): AsyncGenerator<WalkItem, void, undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(realDir, { withFileTypes: true });
  } catch (error) {
    yield { kind: 'unreadable', relative: prefix, path: logicalDir, reason: `folder ${fsReason(error)}` };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isHidden(entry.name)) continue;
    const logical = join(logicalDir, entry.name);
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    let real = join(realDir, entry.name);
    let stats: Stats;
    if (entry.isSymbolicLink()) {
      const target = await followLink(real, roots);
      if (!target.ok) {
        yield { kind: 'skipped', path: logical, reason: target.reason };
        continue;
      }
      real = target.real;
      stats = target.stats;
    } else if (entry.isDirectory() || entry.isFile()) {
      try {
        stats = await stat(real);
      } catch (error) {
        yield { kind: 'skipped', path: logical, reason: fsReason(error) };
        continue;
      }
    } else {
      yield { kind: 'skipped', path: logical, reason: 'not a regular file or folder' };
      continue;
    }
    if (stats.isDirectory()) {
      if (ancestors.has(real)) {
        yield { kind: 'skipped', path: logical, reason: 'symbolic link loops back into a folder being scanned' };
        continue;
      }
      yield* walkFolder(real, logical, relative, roots, new Set([...ancestors, real]));
    } else if (stats.isFile()) {
      yield { kind: 'file', relative, logical, real, stats };
    } else {
      yield { kind: 'skipped', path: logical, reason: 'not a regular file or folder' };
    }
  }
}

export interface HashedFile {
  size: number;
  sha256: string;
  /** The modification time before reading: a change during the read shows at the next scan. */
  modifiedAt: string;
}

/**
 * SHA-256 and size of a file, streamed. Opens without following a final symbolic link (the walk
 * already resolved links) and refuses anything but a regular file, so a swapped entry cannot
 * redirect or block the read.
 */
export async function hashFile(real: string, signal?: AbortSignal): Promise<HashedFile> {
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const hash = createHash('sha256');
    let size = 0;
    const stream = handle.createReadStream({ autoClose: false });
    await pipeline(
      stream,
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          size += chunk.length;
          hash.update(chunk);
        }
      },
      signal ? { signal } : {},
    );
    return { size, sha256: hash.digest('hex'), modifiedAt: stats.mtime.toISOString() };
  } finally {
    await handle.close();
  }
}
