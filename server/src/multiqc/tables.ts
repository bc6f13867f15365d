import { type MultiqcTableColumn, type MultiqcTableData, sampleOfRead } from '@service/common';
import {
  asArray,
  asObject,
  isObject,
  type Json,
  type JsonObject,
  numberOf,
  objectAt,
  type PlotOptions,
  pick,
  plotHeader,
  stringAt,
} from './plot-input.js';
import { NAN_MARKER } from './report-file.js';

/**
 * A table (general statistics or a module's own): its columns with MultiQC's titles and scales,
 * one row per sample (or row key); keys are `<section>-<metric>` as in the general-stats table.
 */
export function tableData(input: JsonObject, anchor: string, options: PlotOptions): MultiqcTableData {
  const sections = objectAt(objectAt(input, 'dt'), 'section_by_id');
  const columns: MultiqcTableColumn[] = [];
  const rows = new Map<string, Record<string, number | string | null>>();
  const rowsKeyedBySample = objectAt(input, 'pconfig').rows_are_samples !== false;
  const modified = new Set<string>();
  // Each sample's rows together, its reads' (FastQC's SRR1_1 and SRR1_2) after its own
  // (cutadapt's SRR1), samples in the order they first come: as MultiQC groups them.
  const groups = new Map<string, Set<string>>();
  for (const [sectionId, sectionJson] of Object.entries(sections)) {
    const section = asObject(sectionJson);
    const prefix = Object.keys(sections).length > 1 || anchor === 'general_stats_table' ? `${sectionId}-` : '';
    for (const [metric, metaJson] of Object.entries(objectAt(section, 'column_by_key'))) {
      columns.push(tableColumn(`${prefix}${metric}`, metric, asObject(metaJson)));
    }
    for (const group of Object.values(objectAt(section, 'rows_by_sgroup'))) {
      for (const entry of asArray(group).map(asObject)) {
        const sample = stringAt(entry, 'sample');
        if (sample === null || (rowsKeyedBySample && !options.shown(sample))) continue;
        const base = sampleOfRead(sample) ?? sample;
        groups.set(base, (groups.get(base) ?? new Set()).add(sample));
        const values = rows.get(sample) ?? {};
        for (const [metric, cell] of Object.entries(objectAt(entry, 'data'))) {
          const { raw, mod } = asObject(cell);
          values[`${prefix}${metric}`] = typeof raw === 'string' && raw !== NAN_MARKER ? raw : numberOf(raw);
          // MultiQC's suffix is the modified value's (" M" for millions): not the raw value's.
          if (typeof mod === 'number' && typeof raw === 'number' && mod !== raw) modified.add(`${prefix}${metric}`);
        }
        rows.set(sample, values);
      }
    }
  }
  const samples = [...groups].flatMap(([base, group]) =>
    [...group].sort((a, b) => Number(b === base) - Number(a === base)),
  );
  const all = rowsKeyedBySample ? countSamples(sections) : samples.length;
  return {
    plot_type: 'table',
    ...plotHeader(input, anchor, rowsKeyedBySample ? samples : [], all),
    columns: columns.map((column) => (modified.has(column.key) ? { ...column, suffix: null } : column)),
    rows: samples.map((sample) => ({ sample, values: rows.get(sample) ?? {} })),
  };
}

/** Columns a plot of an unknown type shows at most: the leaves of one entry beyond these are left out. */
export const DATA_TABLE_COLUMNS = 200;

/**
 * A plot of a type we draw no chart for (a newer MultiQC's, say) as a table of its data, so that
 * nothing the report holds is out of reach: a row per entry of its data (a sample, most often),
 * a column per scalar leaf, named by its path (`counts.reads`, `values.3`).
 */
export function dataTable(input: JsonObject, anchor: string, options: PlotOptions): MultiqcTableData {
  const data = Array.isArray(input.data) ? pick(input.data, options.dataset) : (input.data ?? null);
  const entries: [string, Json][] = Array.isArray(data)
    ? data.map((entry, index) => [stringAt(asObject(entry), 'name') ?? String(index + 1), entry])
    : Object.entries(asObject(data));
  const rowsAreSamples = objectAt(input, 'pconfig').rows_are_samples !== false;
  const shown = entries.filter(([name]) => !rowsAreSamples || options.shown(name));
  const keys = new Set<string>();
  const rows = shown.map(([sample, value]) => {
    const values: Record<string, number | string | null> = {};
    for (const [key, leaf] of leavesOf(value, '')) {
      if (!keys.has(key) && keys.size >= DATA_TABLE_COLUMNS) continue;
      keys.add(key);
      values[key] = typeof leaf === 'string' && leaf !== NAN_MARKER ? leaf : numberOf(leaf);
    }
    return { sample, values };
  });
  return {
    plot_type: 'table',
    ...plotHeader(input, anchor, rowsAreSamples ? rows.map((row) => row.sample) : [], entries.length),
    columns: [...keys].map((key) => tableColumn(key, key, {})),
    rows,
  };
}

/** The scalar leaves of a JSON value with their paths (`a.b`, `list.0`); the value itself when scalar. */
function leavesOf(value: Json, path: string): [string, Json][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leavesOf(item, join(path, String(index))));
  if (isObject(value)) return Object.entries(value).flatMap(([key, item]) => leavesOf(item, join(path, key)));
  return [[path === '' ? 'value' : path, value]];
}

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

function tableColumn(key: string, metric: string, meta: JsonObject): MultiqcTableColumn {
  return {
    key,
    title: stringAt(meta, 'title') ?? metric,
    description: stringAt(meta, 'description'),
    suffix: stringAt(meta, 'suffix'),
    scale: stringAt(meta, 'scale'),
    min: numberOf(meta.min ?? meta.dmin),
    max: numberOf(meta.max ?? meta.dmax),
  };
}

function countSamples(sections: JsonObject): number {
  const samples = new Set<string>();
  for (const section of Object.values(sections)) {
    for (const group of Object.values(objectAt(asObject(section), 'rows_by_sgroup'))) {
      for (const entry of asArray(group)) {
        const sample = stringAt(asObject(entry), 'sample');
        if (sample !== null) samples.add(sample);
      }
    }
  }
  return samples.size;
}
