import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withinBounds } from '../../src/engine/bounded-work.js';
import type { DeltaSnapshot } from '../../src/engine/delta/index.js';
import { DuckDB } from '../../src/engine/duckdb.js';
import { DomainError } from '../../src/errors.js';
import { MultiqcReports, type ReportFile } from '../../src/multiqc/reports.js';
import { workBounds } from '../engine/support.js';

/**
 * The report cache loads a report once for every request that asks meanwhile, under the bounds of
 * the first: when that one is stopped (an editor's preview is dropped at each change), the others
 * must still get the report, not the first one's "the client went away".
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/multiqc/', import.meta.url));
const REPORT: ReportFile = {
  file_id: 'report-1',
  run_id: 'run-1',
  run_tag: 'run',
  sha256: 'a'.repeat(64),
  size: 0,
  storage_key: null,
  source_path: `${FIXTURES}ampliseq-2.16.0-multiqc.parquet`,
};
/** A table version of one data file from the report (all the cache reads of a snapshot). */
const SNAPSHOT = { files: [{ partitionValues: { _file_id: REPORT.file_id } }] } as unknown as DeltaSnapshot;

let duckdb: DuckDB;
beforeAll(async () => {
  duckdb = await DuckDB.open();
});
afterAll(() => duckdb?.close());

function reports() {
  return new MultiqcReports({
    duckdb,
    files: { acquire: () => Promise.reject(new Error('the report is read from its source path')) },
    lookup: { reportFiles: async () => [REPORT] },
    allowedRoots: [FIXTURES],
  });
}

it('gives a waiting request the report when the request that began loading it is stopped', async () => {
  const cache = reports();
  const first = workBounds();
  const second = workBounds();
  const firstRead = withinBounds(first.bounds, () => cache.of(SNAPSHOT));
  const secondRead = withinBounds(second.bounds, () => cache.of(SNAPSHOT));
  first.controller.abort(new DomainError('request_timeout', 'the client went away'));
  await expect(firstRead).rejects.toThrow('the client went away');
  const [report] = await secondRead;
  expect(report?.plots.has('fastqc_sequence_counts_plot')).toBe(true);
});

it('fails every request whose own work was stopped', async () => {
  const cache = reports();
  const only = workBounds();
  only.controller.abort(new DomainError('request_timeout', 'the client went away'));
  await expect(withinBounds(only.bounds, () => cache.of(SNAPSHOT))).rejects.toThrow('the client went away');
  // Nothing failed is kept: the next request loads it.
  const [report] = await withinBounds(workBounds().bounds, () => cache.of(SNAPSHOT));
  expect(report?.plots.size).toBeGreaterThan(10);
});
