import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DataLocation } from '@service/common';
import { fsReason, walkRun } from '../ingestion/scan-fs.js';
import { isInsideAllowedRoots, realRoots } from '../locations/allowed-roots.js';

/**
 * A SHA-256 of what a watched workflow's locations hold: every file's path, size and modification
 * time, and every folder or location that could not be read (so a folder coming back counts as a
 * change). Nothing is opened: listing costs one `stat` a file, whatever its size. The walk is the
 * scanner's, so it skips what a scan skips and never leaves the allowed roots.
 */
export async function listingFingerprint(
  dataLocation: string | null,
  allowedRoots: readonly string[],
): Promise<string> {
  const hash = createHash('sha256');
  if (dataLocation === null) return hash.digest('hex');
  const { locations } = JSON.parse(dataLocation) as DataLocation;
  const roots = await realRoots(allowedRoots);
  for (const location of locations) {
    hash.update(`location\0${location}\n`);
    const real = await readableLocation(location, allowedRoots, roots);
    if (!real.ok) {
      hash.update(`unreadable\0${real.reason}\n`);
      continue;
    }
    for await (const item of walkRun(real.path, location, roots)) {
      if (item.kind === 'file') hash.update(`file\0${item.relative}\0${item.stats.size}\0${item.stats.mtimeMs}\n`);
      else hash.update(`${item.kind}\0${item.path}\n`);
    }
  }
  return hash.digest('hex');
}

async function readableLocation(
  location: string,
  allowedRoots: readonly string[],
  roots: readonly string[],
): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
  if (!isInsideAllowedRoots(location, allowedRoots)) return { ok: false, reason: 'outside the allowed roots' };
  try {
    const path = await realpath(resolve(location));
    return isInsideAllowedRoots(path, roots) ? { ok: true, path } : { ok: false, reason: 'leads outside the roots' };
  } catch (error) {
    return { ok: false, reason: fsReason(error) };
  }
}
