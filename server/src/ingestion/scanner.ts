import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { compileFilePattern, type DataLocation, dataLocationSchema, type FilePattern } from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../db/database.js';
import type { FilesTable, WorkflowsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { contentTypeOf } from '../files/content-type.js';
import { isInsideAllowedRoots, realRoots } from '../locations/allowed-roots.js';
import { fileRows } from '../tables/files.js';
import { registerRun, runRows } from '../tables/runs.js';
import { followLink, fsReason, hashFile, isHidden, walkRun } from './scan-fs.js';

/** Progress of a scan: what it is doing, and how far it is (0–1) when that is known. */
export type ScanProgress = (detail: string, fraction: number | null) => void;

export interface ScanOptions {
  /** Checked between files (and while hashing one); an abort throws its reason. */
  signal?: AbortSignal | undefined;
  onProgress?: ScanProgress | undefined;
}

export interface ScanSummary {
  /** Run folders scanned. */
  runs: number;
  /** Files found on disk and registered (added + changed + unchanged). */
  files: number;
  added: number;
  /** Registered files whose content changed. */
  changed: number;
  /** Scanned files unregistered because they are gone from disk (or may no longer be read). */
  removed: number;
  /** Registered files whose content did not change (re-read only when their size or time changed). */
  unchanged: number;
  /** Files read and hashed by this scan (0 for a re-scan where nothing changed). */
  hashed: number;
  /** Paths left out: symbolic links leaving the allowed roots, unreadable files or folders, clashes with uploads. */
  skipped: { path: string; reason: string }[];
  /** Locations (or run folders) that could not be scanned: refused, missing, unreadable. */
  errors: { location: string; message: string }[];
  /** The locations scanned, for the ingestion run record. */
  sourcePaths: string[];
}

type FileRecord = Pick<
  FilesTable,
  'id' | 'path' | 'size' | 'sha256' | 'modified_at' | 'origin' | 'source_path' | 'created_at' | 'updated_at'
>;

interface RunFolder {
  tag: string;
  /** The run folder's path under its declared location: recorded as the run's location. */
  logical: string;
  /** Its real path: what the scan reads. */
  real: string;
}

type CheckedLocation = { ok: true; logical: string; real: string } | { ok: false; message: string; transient: boolean };

const WRITE_BATCH = 200;
const DELETE_BATCH = 500;
const PROGRESS_EVERY_FILES = 100;

const emptySummary = (): ScanSummary => ({
  runs: 0,
  files: 0,
  added: 0,
  changed: 0,
  removed: 0,
  unchanged: 0,
  hashed: 0,
  skipped: [],
  errors: [],
  sourcePaths: [],
});

/**
 * Scans a workflow's data locations (docs/architecture.md "Ingestion"): finds its run folders, registers the
 * runs and their files with a streamed SHA-256, and unregisters scanned files that are gone.
 * Uploaded files are never touched. A file whose size and modification time match its record
 * keeps its hash without being read. Each location is checked again here against the allowed
 * roots by its real path; a location that cannot be scanned is reported in `errors`, and what
 * was registered from it stays until it can be read again (unless it is refused: files the server
 * may no longer read are unregistered).
 *
 * Idempotent, and safe to run concurrently (for the same workflow too): runs and files are
 * written with on-conflict clauses over their unique keys.
 */
export async function scanWorkflow(
  database: Database,
  allowedRoots: readonly string[],
  workflow: Pick<WorkflowsTable, 'id' | 'data_location'>,
  options: ScanOptions = {},
): Promise<ScanSummary> {
  const { signal } = options;
  const progress: ScanProgress = options.onProgress ?? (() => undefined);
  const summary = emptySummary();
  signal?.throwIfAborted();
  if (workflow.data_location === null) return summary;
  const dataLocation = parseDataLocation(workflow.data_location);
  const roots = await realRoots(allowedRoots);

  progress('finding runs', null);
  let runsRegex: FilePattern;
  try {
    runsRegex = compileFilePattern(dataLocation.runs_regex ?? '', 'search');
  } catch {
    for (const location of dataLocation.locations)
      summary.errors.push({ location, message: 'runs_regex is not a valid regular expression' });
    return summary;
  }

  /** Locations whose registered runs stay as they are, because they could not be read just now. */
  const keptLocations: string[] = [];
  const runFolders = new Map<string, RunFolder>();
  for (const location of dataLocation.locations) {
    signal?.throwIfAborted();
    const checked = await checkLocation(location, allowedRoots, roots);
    if (!checked.ok) {
      summary.errors.push({ location, message: checked.message });
      if (checked.transient) keptLocations.push(resolve(location));
      continue;
    }
    const found = await findRuns(checked, dataLocation, runsRegex, roots, summary);
    if (found === null) {
      keptLocations.push(checked.logical);
      continue;
    }
    summary.sourcePaths.push(checked.logical);
    for (const run of found) {
      if (runFolders.has(run.tag)) {
        summary.errors.push({ location: run.logical, message: `another location already has a run named ${run.tag}` });
        keptLocations.push(run.logical);
      } else {
        runFolders.set(run.tag, run);
      }
    }
  }

  const runs = [...runFolders.values()];
  const seenRuns = new Set<string>();
  for (const [index, run] of runs.entries()) {
    signal?.throwIfAborted();
    progress(`scanning run ${run.tag} (${index + 1}/${runs.length})`, index / runs.length);
    const runId = await ensureRun(database, workflow.id, run);
    seenRuns.add(runId);
    await scanRun(database, runId, run, roots, summary, {
      signal,
      progress: (files) => progress(`scanning run ${run.tag}: ${files} files`, index / runs.length),
    });
    summary.runs += 1;
  }

  // Runs found by earlier scans that are no longer there (or no longer allowed): their scanned
  // files go, unless their location could not be read this time.
  const registered = await runRows.located(database.db, workflow.id);
  for (const run of registered) {
    if (seenRuns.has(run.id) || run.location === null) continue;
    if (isInsideAllowedRoots(run.location, keptLocations)) continue;
    signal?.throwIfAborted();
    summary.removed += await fileRows.deleteScannedOfRun(database.db, run.id);
  }
  progress(`scanned ${summary.runs} runs, ${summary.files} files`, 1);
  return summary;
}

function parseDataLocation(text: string): DataLocation {
  const parsed = dataLocationSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error('the workflow’s data location is not valid');
  return parsed.data;
}

/** The location as declared must lie inside the roots, and so must its real path. */
async function checkLocation(
  location: string,
  allowedRoots: readonly string[],
  roots: readonly string[],
): Promise<CheckedLocation> {
  if (!isInsideAllowedRoots(location, allowedRoots))
    return { ok: false, message: 'the location is not inside SERVICE_INGESTION_ALLOWED_ROOTS', transient: false };
  const logical = resolve(location);
  let real: string;
  try {
    real = await realpath(logical);
  } catch (error) {
    return { ok: false, message: `the location ${fsReason(error)}`, transient: true };
  }
  if (!isInsideAllowedRoots(real, roots))
    return {
      ok: false,
      message: 'the location leads outside SERVICE_INGESTION_ALLOWED_ROOTS through a symbolic link',
      transient: false,
    };
  try {
    if (!(await stat(real)).isDirectory())
      return { ok: false, message: 'the location is not a folder', transient: true };
  } catch (error) {
    return { ok: false, message: `the location ${fsReason(error)}`, transient: true };
  }
  return { ok: true, logical, real };
}

/** The run folders of a location; null (with an error recorded) when it cannot be listed. */
async function findRuns(
  location: { logical: string; real: string },
  dataLocation: DataLocation,
  runsRegex: FilePattern,
  roots: readonly string[],
  summary: ScanSummary,
): Promise<RunFolder[] | null> {
  if (dataLocation.structure === 'flat') {
    return [{ tag: basename(location.logical) || 'root', logical: location.logical, real: location.real }];
  }
  let entries: Dirent[];
  try {
    entries = await readdir(location.real, { withFileTypes: true });
  } catch (error) {
    summary.errors.push({ location: location.logical, message: `the location ${fsReason(error)}` });
    return null;
  }
  const runs: RunFolder[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (isHidden(entry.name) || !runsRegex.test(entry.name)) continue;
    const logical = join(location.logical, entry.name);
    const real = join(location.real, entry.name);
    if (entry.isDirectory()) {
      runs.push({ tag: entry.name, logical, real });
    } else if (entry.isSymbolicLink()) {
      const target = await followLink(real, roots);
      if (!target.ok) summary.skipped.push({ path: logical, reason: target.reason });
      else if (target.stats.isDirectory()) runs.push({ tag: entry.name, logical, real: target.real });
    }
  }
  return runs;
}

/** The run's id, registering it if new; its location follows the folder it was found in. */
async function ensureRun(database: Database, workflowId: string, run: RunFolder): Promise<string> {
  const row = await registerRun(database.db, workflowId, run.tag, run.logical);
  if (row.location !== run.logical) {
    await runRows.moveTo(database.db, row.id, run.logical);
  }
  return row.id;
}

/** Registers the files of one run folder and unregisters its scanned files that are gone. */
async function scanRun(
  database: Database,
  runId: string,
  run: RunFolder,
  roots: readonly string[],
  summary: ScanSummary,
  options: { signal: AbortSignal | undefined; progress: (files: number) => void },
): Promise<void> {
  const { signal } = options;
  const records = new Map<string, FileRecord>();
  for (const record of await fileRows.scannedOfRun(database.db, runId)) {
    records.set(record.path, record);
  }

  /** Paths found (or kept because they could not be read just now): not unregistered. */
  const present = new Set<string>();
  /** Folders that could not be listed: what is registered under them is kept. */
  const unreadable: string[] = [];
  const pending: FilesTable[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await fileRows.writeScanned(database.db, pending.splice(0));
  };

  let found = 0;
  for await (const item of walkRun(run.real, run.logical, roots)) {
    signal?.throwIfAborted();
    if (item.kind === 'skipped') {
      summary.skipped.push({ path: item.path, reason: item.reason });
      continue;
    }
    if (item.kind === 'unreadable') {
      summary.skipped.push({ path: item.path, reason: item.reason });
      unreadable.push(item.relative);
      continue;
    }
    present.add(item.relative);
    const record = records.get(item.relative);
    if (record?.origin === 'upload') {
      summary.skipped.push({ path: item.logical, reason: 'an uploaded file has the same path in this run' });
      continue;
    }
    found += 1;
    if (found % PROGRESS_EVERY_FILES === 0) options.progress(found);
    if (
      record !== undefined &&
      record.size === item.stats.size &&
      record.modified_at === item.stats.mtime.toISOString() &&
      record.source_path === item.logical
    ) {
      summary.unchanged += 1;
      summary.files += 1;
      continue;
    }

    let hashed: Awaited<ReturnType<typeof hashFile>>;
    try {
      hashed = await hashFile(item.real, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      summary.skipped.push({ path: item.logical, reason: `file ${fsReason(error)}` });
      continue;
    }
    pending.push(hashedRecord(runId, item, record, hashed, summary));
    if (pending.length >= WRITE_BATCH) await flush();
  }
  await flush();
  await unregisterGone(database, [...records.values()], present, unreadable, summary);
}

/** The file record of a file just hashed, counted as added, unchanged or changed. */
function hashedRecord(
  runId: string,
  item: { relative: string; logical: string },
  record: FileRecord | undefined,
  hashed: Awaited<ReturnType<typeof hashFile>>,
  summary: ScanSummary,
): FilesTable {
  summary.hashed += 1;
  summary.files += 1;
  const now = isoNow();
  const sameContent = record !== undefined && record.sha256 === hashed.sha256 && record.size === hashed.size;
  if (record === undefined) summary.added += 1;
  else if (sameContent) summary.unchanged += 1;
  else summary.changed += 1;
  return {
    id: record?.id ?? uuidv7(),
    run_id: runId,
    path: item.relative,
    size: hashed.size,
    sha256: hashed.sha256,
    modified_at: hashed.modifiedAt,
    content_type: contentTypeOf(item.relative),
    origin: 'scan',
    storage_key: null,
    source_path: item.logical,
    created_at: record?.created_at ?? now,
    // Only the time or place changed (a touched or moved file): the content's record did not.
    updated_at: sameContent ? record.updated_at : now,
  };
}

/** Unregisters the scanned files not found, but for those under folders that could not be listed. */
async function unregisterGone(
  database: Database,
  records: FileRecord[],
  present: ReadonlySet<string>,
  unreadable: readonly string[],
  summary: ScanSummary,
): Promise<void> {
  const kept = (path: string) => unreadable.some((folder) => folder === '' || path.startsWith(`${folder}/`));
  const gone = records
    .filter((record) => record.origin === 'scan' && !present.has(record.path) && !kept(record.path))
    .map((record) => record.id);
  for (let start = 0; start < gone.length; start += DELETE_BATCH) {
    summary.removed += await fileRows.deleteScanned(database.db, gone.slice(start, start + DELETE_BATCH));
  }
}
