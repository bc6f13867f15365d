/**
 * A large MultiQC-shaped report for the `multiqc` benchmark, made from the real nf-core/ampliseq
 * report (server/test/fixtures/multiqc): its 24 read samples replicated to `samples` with jitter
 * (each number × a factor in [0.95, 1.05)), in every plot and in the general statistics, written
 * as `multiqc.parquet` with MultiQC's columns. Deterministic (a seeded generator).
 */
import { DuckDBInstance } from '@duckdb/node-api';

const REAL_REPORT = new URL('../../../server/test/fixtures/multiqc/ampliseq-2.16.0-multiqc.parquet', import.meta.url);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A seeded generator (mulberry32): the same report on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The names of the copies of a sample: `name`, then `name-c2`, `name-c3`, … */
function copiesOf(sample: string, copies: number): string[] {
  return Array.from({ length: copies }, (_, index) => (index === 0 ? sample : `${sample}-c${index + 1}`));
}

/** Every number in a value, jittered (positions `x` of pairs kept). */
function jitter(value: Json, next: () => number): Json {
  if (typeof value === 'number') return value * (0.95 + next() * 0.1);
  if (Array.isArray(value)) return value.map((item) => jitter(item, next));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, jitter(item, next)]));
  }
  return value;
}

/** A plot input with each sample replicated: bar data keyed by sample, line series, heatmap rows, table rows. */
function replicate(input: { [key: string]: Json }, copies: number, next: () => number): { [key: string]: Json } {
  const out = { ...input };
  if (Array.isArray(input.data)) {
    out.data = input.data.map((dataset) => {
      if (Array.isArray(dataset)) {
        return dataset.flatMap((line) => {
          const series = line as { [key: string]: Json };
          return copiesOf(String(series.name), copies).map((name, index) => ({
            ...series,
            name,
            pairs:
              index === 0
                ? (series.pairs ?? [])
                : (series.pairs as Json[]).map((pair) => {
                    const [x, y] = pair as [Json, Json];
                    return [x, jitter(y, next)];
                  }),
          }));
        });
      }
      if (dataset !== null && typeof dataset === 'object') {
        return Object.fromEntries(
          Object.entries(dataset).flatMap(([sample, values]) =>
            copiesOf(sample, copies).map((name, index) => [name, index === 0 ? values : jitter(values, next)]),
          ),
        );
      }
      return dataset;
    });
  }
  if (Array.isArray(input.ycats) && Array.isArray(input.rows)) {
    out.ycats = input.ycats.flatMap((name) => copiesOf(String(name), copies));
    out.rows = input.rows.flatMap((row) => copiesOf('', copies).map(() => row));
  }
  const dt = input.dt as { [key: string]: Json } | undefined;
  if (
    dt?.section_by_id !== undefined &&
    (input.pconfig as { rows_are_samples?: boolean })?.rows_are_samples !== false
  ) {
    const sections = dt.section_by_id as { [key: string]: { [key: string]: Json } };
    out.dt = {
      ...dt,
      section_by_id: Object.fromEntries(
        Object.entries(sections).map(([id, section]) => [
          id,
          {
            ...section,
            rows_by_sgroup: Object.fromEntries(
              Object.entries(section.rows_by_sgroup as { [key: string]: Json[] }).flatMap(([group, rows]) =>
                copiesOf(group, copies).map((name, index) => [
                  name,
                  rows.map((row) => ({
                    ...(row as object),
                    sample: copiesOf(String((row as { sample: string }).sample), copies)[index] ?? name,
                    data: index === 0 ? (row as { data: Json }).data : jitter((row as { data: Json }).data, next),
                  })),
                ]),
              ),
            ),
          },
        ]),
      ),
    };
  }
  return out;
}

/** Writes the report of about `samples` read samples to `target`; answers the sample count and seconds taken. */
export async function writeLargeReport(target: string, samples: number): Promise<{ samples: number; seconds: number }> {
  const started = performance.now();
  const copies = Math.max(1, Math.round(samples / 24));
  const next = random(20_261_127);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const source = `read_parquet('${REAL_REPORT.pathname}')`;
    const inputs = (
      await connection.runAndReadAll(
        `SELECT anchor, plot_type, plot_input_data FROM ${source} WHERE type = 'plot_input'`,
      )
    ).getRowObjectsJson() as { anchor: string; plot_type: string; plot_input_data: string }[];
    await connection.run(`CREATE TABLE report AS SELECT * FROM ${source} WHERE type = 'run_metadata'`);
    for (const input of inputs) {
      const data = JSON.stringify(
        replicate(JSON.parse(input.plot_input_data) as { [key: string]: Json }, copies, next),
      );
      const prepared = await connection.prepare(
        `INSERT INTO report (anchor, type, plot_type, plot_input_data) VALUES ($1, 'plot_input', $2, $3)`,
      );
      prepared.bindVarchar(1, input.anchor);
      prepared.bindVarchar(2, input.plot_type);
      prepared.bindVarchar(3, data);
      await prepared.run();
    }
    // The general statistics' rows: each sample's row for each copy, its value jittered in SQL.
    await connection.run(`
      INSERT INTO report BY NAME
      SELECT * EXCLUDE (copy) REPLACE (
        CASE WHEN copy = 1 THEN sample ELSE sample || '-c' || copy END AS sample,
        CASE WHEN copy = 1 THEN val_raw ELSE val_raw * (0.95 + 0.1 * hash(sample, metric, copy) / 18446744073709551615.0) END AS val_raw
      )
      FROM (SELECT *, unnest(range(1, ${copies + 1})) AS copy FROM ${source} WHERE type = 'plot_input_row' AND anchor = 'general_stats_table')`);
    await connection.run(`COPY report TO '${target}' (FORMAT parquet)`);
    return { samples: copies * 24, seconds: (performance.now() - started) / 1000 };
  } finally {
    connection.closeSync();
  }
}
