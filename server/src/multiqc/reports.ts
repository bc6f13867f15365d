import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { currentBounds, type WorkBounds } from '../engine/bounded-work.js';
import type { DeltaSnapshot } from '../engine/delta/index.js';
import type { DuckDB } from '../engine/duckdb.js';
import type { ObjectFiles } from '../engine/object-files.js';
import { DomainError } from '../errors.js';
import { realPathInsideRoots } from '../locations/allowed-roots.js';
import { fileRows } from '../tables/files.js';
import type { Json, JsonObject } from './plots.js';
import { type PlotInput, plotInputs, type RunMetadata, runMetadata } from './report-file.js';

/**
 * The MultiQC reports a collection's table version was made from, read once per report content
 * and kept while the process runs (a report's content never changes under its hash, so a cached
 * one can never be stale). Which reports a version holds comes from its data files' partition
 * values (`_file_id`, `_run_id`): one data file per report, so no row is read to know them.
 */

/** A report file as the metadata database records it. */
export interface ReportFile {
  file_id: string;
  run_id: string;
  run_tag: string;
  sha256: string;
  size: number;
  storage_key: string | null;
  source_path: string | null;
}

/** One report: its metadata and its plots' inputs (parsed when first drawn). */
export interface Report {
  file: ReportFile;
  metadata: RunMetadata;
  plots: Map<string, PlotInput & { parsed?: JsonObject }>;
}

export interface ReportFilesLookup {
  /** The report files with these ids (those still registered). */
  reportFiles(fileIds: readonly string[]): Promise<ReportFile[]>;
}

export interface MultiqcReportsDeps {
  duckdb: Pick<DuckDB, 'withConnection'>;
  files: Pick<ObjectFiles, 'acquire'>;
  lookup: ReportFilesLookup;
  allowedRoots: readonly string[];
}

/** Characters of plot JSON kept in memory across reports before the oldest are forgotten. */
const CACHE_CHARACTERS = 256 * 1024 * 1024;

export class MultiqcReports {
  private readonly cache = new Map<string, { loading: Promise<Report>; loader: WorkBounds | undefined }>();
  private readonly sizes = new Map<string, number>();
  private cached = 0;

  constructor(private readonly deps: MultiqcReportsDeps) {}

  /** The reports of a table version, in run order (the order their runs were registered). */
  async of(snapshot: DeltaSnapshot | null): Promise<Report[]> {
    if (snapshot === null) return [];
    const ids = [...new Set(snapshot.files.flatMap((file) => file.partitionValues._file_id ?? []))];
    if (ids.length === 0) return [];
    const files = await this.deps.lookup.reportFiles(ids);
    return Promise.all(files.map((file) => this.report(file)));
  }

  /**
   * A report, loaded once for all the requests that ask for it meanwhile. The load runs under the
   * bounds of the request that asked first; when that request is stopped (its client went away,
   * as an editor's preview does at each change), the others, still going, load it again
   * themselves rather than fail with its reason.
   */
  private async report(file: ReportFile): Promise<Report> {
    for (;;) {
      const { loading, loader } = this.shared(file);
      try {
        return await loading;
      } catch (error) {
        const own = currentBounds();
        if (loader === own || loader?.signal.aborted !== true || own?.signal.aborted === true) throw error;
      }
    }
  }

  private shared(file: ReportFile): { loading: Promise<Report>; loader: WorkBounds | undefined } {
    const key = `${file.file_id}\u0000${file.sha256}`;
    const known = this.cache.get(key);
    if (known !== undefined) {
      // Most recently used last.
      this.cache.delete(key);
      this.cache.set(key, known);
      return known;
    }
    const loading = this.load(file).then((report) => {
      this.remember(key, report);
      return report;
    });
    const entry = { loading, loader: currentBounds() };
    loading.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    this.cache.set(key, entry);
    return entry;
  }

  private async load(file: ReportFile): Promise<Report> {
    const { path, release } = await this.localPath(file);
    try {
      return await this.deps.duckdb.withConnection(async (connection) => {
        const metadata = await runMetadata(connection, path);
        const inputs = await plotInputs(connection, path);
        return { file, metadata, plots: new Map(inputs.map((input) => [input.anchor, input])) };
      });
    } finally {
      release();
    }
  }

  private remember(key: string, report: Report) {
    const size = [...report.plots.values()].reduce((sum, plot) => sum + plot.json.length, 0);
    this.sizes.set(key, size);
    this.cached += size;
    for (const oldest of this.cache.keys()) {
      if (this.cached <= CACHE_CHARACTERS || oldest === key) break;
      this.cache.delete(oldest);
      this.cached -= this.sizes.get(oldest) ?? 0;
      this.sizes.delete(oldest);
    }
  }

  private async localPath(file: ReportFile): Promise<{ path: string; release: () => void }> {
    if (file.source_path !== null) {
      const real = await realPathInsideRoots(file.source_path, this.deps.allowedRoots);
      if (real === null)
        throw new DomainError('not_found', 'a MultiQC report is no longer readable inside the allowed roots');
      return { path: real, release: () => undefined };
    }
    if (file.storage_key === null) throw new DomainError('not_found', 'a MultiQC report has no content');
    const lease = await this.deps.files.acquire([{ key: file.storage_key, size: file.size }]);
    return { path: lease.paths[0] as string, release: () => lease.release() };
  }
}

/** A plot's input, parsed once (reports are immutable under their hash). */
export function parsedPlot(plot: PlotInput & { parsed?: JsonObject }): JsonObject {
  if (plot.parsed === undefined) {
    const value = JSON.parse(plot.json) as Json;
    plot.parsed = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  }
  return plot.parsed;
}

/** Report files by id, from the metadata database (with their run's tag, which names a run's samples apart). */
export function reportFilesIn(db: Kysely<Tables>): ReportFilesLookup {
  return {
    async reportFiles(fileIds) {
      return fileRows.reportFiles(db, fileIds);
    },
  };
}
