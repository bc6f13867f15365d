import type { LineSeriesOption } from 'echarts';
import type { FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, plural } from './body.js';
import { categoryLabel } from './columns.js';

/**
 * Coverage tracks (docs/dashboards.md "Coverage tracks and phylogenetic trees"): per sample, a
 * band from the lowest to the highest depth of each bucket (the server's min/max downsampling)
 * with the mean as a line. The band is two stacked lines: the lowest depth, invisible, and the
 * span above it, filled.
 */
interface Track {
  name: string;
  /** Per bucket: its middle position, mean, lowest and highest depth. */
  points: [number, number | null, number | null, number | null][];
}

function tracksOf(input: ChartInput): Track[] {
  const { columns, data } = input;
  const byName = new Map<string, Track>();
  for (const row of data.rows) {
    const name = columns.has('color') ? categoryLabel(columns.value(row, 'color')) : columns.label('y');
    const track = byName.get(name) ?? { name, points: [] };
    const low = columns.number(row, 'x_low') ?? 0;
    const high = columns.number(row, 'x_high') ?? low;
    track.points.push([
      (low + high) / 2,
      columns.number(row, 'mean'),
      columns.number(row, 'min'),
      columns.number(row, 'max'),
    ]);
    byName.set(name, track);
  }
  return [...byName.values()];
}

function trackSeries(input: ChartInput, track: Track, index: number): LineSeriesOption[] {
  const color = input.colors.of(track.name);
  const stack = `band ${index}`;
  const quiet = { showSymbol: false, silent: true, tooltip: { show: false }, emphasis: { disabled: true } } as const;
  return [
    {
      ...quiet,
      type: 'line',
      name: track.name,
      stack,
      data: track.points.map(([x, , low]) => [x, low]),
      lineStyle: { opacity: 0 },
      itemStyle: { color },
    },
    {
      ...quiet,
      type: 'line',
      name: track.name,
      stack,
      data: track.points.map(([x, , low, high]) => [x, low === null || high === null ? null : high - low]),
      lineStyle: { width: 0 },
      areaStyle: { color, opacity: 0.25 },
      itemStyle: { color },
    },
    {
      type: 'line',
      name: track.name,
      showSymbol: false,
      data: track.points.map(([x, mean]) => [x, mean]),
      lineStyle: { width: 1, color },
      itemStyle: { color },
    },
  ];
}

export function coverage(input: ChartInput): ChartBody {
  const { columns, data } = input;
  const tracks = tracksOf(input);
  // A track of several contigs names the one drawn: "pos on 2".
  const along = data.contig === undefined ? columns.label('x_low') : `${columns.label('x_low')} on ${data.contig}`;
  return {
    dataset: [],
    series: tracks.flatMap((track, index) => trackSeries(input, track, index)),
    x: { name: along, kind: 'value' },
    y: { name: columns.label('mean'), kind: 'value', fromZero: true },
    legend: columns.has('color'),
    trigger: 'axis',
    zoom: true,
    description: `Coverage of ${columns.label('mean')} along ${along}, ${plural(tracks.length, 'track')}, ${plural(data.rows.length, 'bucket')} drawn.`,
  };
}

/** The line under a coverage track's title: how the positions were bucketed, and samples left out. */
export function coverageSubtitle(data: FigureData): string | undefined {
  const width = data.bucket_width ?? 0;
  const parts = [
    width > 0
      ? `lowest to highest depth per ${width.toLocaleString('en-US', { maximumFractionDigits: 1 })} positions`
      : '',
    data.left_out_series ? `${plural(data.left_out_series, 'sample')} left out` : '',
    data.contigs !== undefined && data.contigs.length > 1 ? `contig ${data.contig} of ${data.contigs.length}` : '',
  ].filter(Boolean);
  return parts.length === 0 ? undefined : parts.join(' · ');
}
