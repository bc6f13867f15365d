import type { MultiqcData } from '@service/common';

/**
 * One plot's data from several runs' reports as one: samples side by side (a sample name that an
 * earlier run already used is suffixed with its run's tag, so no run hides another's), categories
 * and table columns united. Each part is already narrowed to its run's samples.
 */
export function mergePlotData(parts: readonly { data: MultiqcData; runTag: string }[]): MultiqcData | null {
  const [first, ...rest] = parts;
  if (first === undefined) return null;
  if (rest.length === 0) return first.data;
  const seen = new Set<string>();
  const renamed = parts.map(({ data, runTag }) => renameTaken(data, runTag, seen));
  return renamed.reduce(combine);
}

/** The part with its samples renamed where an earlier part has them; adds its names to `seen`. */
function renameTaken(data: MultiqcData, runTag: string, seen: Set<string>): MultiqcData {
  const names = new Map<string, string>();
  for (const sample of sampleNames(data)) {
    const name = seen.has(sample) ? `${sample} (${runTag})` : sample;
    names.set(sample, name);
    seen.add(name);
  }
  const rename = (sample: string) => names.get(sample) ?? sample;
  const samples = data.samples.map(rename);
  switch (data.plot_type) {
    case 'bar':
      return { ...data, samples };
    case 'line':
    case 'scatter':
      return { ...data, samples, series: data.series.map((entry) => ({ ...entry, name: rename(entry.name) })) };
    case 'heatmap':
      return { ...data, samples, y: data.y.map(rename) };
    case 'box':
    case 'violin':
      return { ...data, samples, boxes: data.boxes.map((box) => ({ ...box, name: rename(box.name) })) };
    case 'table':
      return { ...data, samples, rows: data.rows.map((row) => ({ ...row, sample: rename(row.sample) })) };
  }
}

function sampleNames(data: MultiqcData): string[] {
  switch (data.plot_type) {
    case 'table':
      return data.rows.map((row) => row.sample);
    case 'heatmap':
      return data.y;
    default:
      return data.samples;
  }
}

function combine(a: MultiqcData, b: MultiqcData): MultiqcData {
  const shared = { samples: [...a.samples, ...b.samples], hidden_samples: a.hidden_samples + b.hidden_samples };
  if (a.plot_type === 'bar' && b.plot_type === 'bar') {
    const names = [...new Set([...a.series.map((s) => s.name), ...b.series.map((s) => s.name)])];
    const valuesOf = (data: typeof a, name: string) =>
      data.series.find((entry) => entry.name === name)?.values ?? data.samples.map(() => null);
    const series = names.map((name) => ({
      name,
      color: [...a.series, ...b.series].find((entry) => entry.name === name)?.color ?? null,
      values: [...valuesOf(a, name), ...valuesOf(b, name)],
    }));
    return { ...a, ...shared, series };
  }
  if ((a.plot_type === 'line' || a.plot_type === 'scatter') && (b.plot_type === 'line' || b.plot_type === 'scatter')) {
    return { ...a, ...shared, series: [...a.series, ...b.series], categorical_x: a.categorical_x || b.categorical_x };
  }
  if (a.plot_type === 'heatmap' && b.plot_type === 'heatmap') {
    const x = [...new Set([...a.x, ...b.x])];
    const align = (data: typeof a) => data.values.map((row) => x.map((name) => row[data.x.indexOf(name)] ?? null));
    return { ...a, ...shared, x, y: [...a.y, ...b.y], values: [...align(a), ...align(b)] };
  }
  if ((a.plot_type === 'box' || a.plot_type === 'violin') && (b.plot_type === 'box' || b.plot_type === 'violin')) {
    return { ...a, ...shared, boxes: [...a.boxes, ...b.boxes] };
  }
  if (a.plot_type === 'table' && b.plot_type === 'table') {
    const keys = new Set(a.columns.map((column) => column.key));
    const columns = [...a.columns, ...b.columns.filter((column) => !keys.has(column.key))];
    return { ...a, ...shared, columns, rows: [...a.rows, ...b.rows] };
  }
  // The same anchor drawn differently by two MultiQC versions: the first run's form is kept.
  return a;
}
