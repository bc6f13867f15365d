import { Checkbox, Group, NumberInput, Stack } from '@mantine/core';
import {
  CHART_TYPES,
  type ChartType,
  type ComponentAgg,
  componentAggSchema,
  type FigureComponent,
  isHierarchySetChart,
  isMapChart,
  isRankedDistributionChart,
  type TableColumn,
  TIME_GRAINS,
  type TimeGrain,
} from '@service/common';
import { Choice } from './Choice.js';
import {
  chartAggregates,
  columnKind,
  FIGURE_ROLES,
  type FigureRole,
  figureRoles,
  fittingColumns,
} from './column-fit.js';
import { FieldThresholds, isFieldChart } from './FieldThresholds.js';
import { GenomeTrackOptions } from './GenomeTrackOptions.js';
import { fittedHierarchySet, HierarchySetFields } from './HierarchySetFields.js';
import { RankedOptions, withoutRankedOptions } from './RankedOptions.js';
import { isSampleChart, SampleChartFields, withoutSampleFields } from './SampleChartFields.js';

const ROLE_LABELS: Record<FigureRole, string> = {
  x: 'X axis',
  y: 'Y axis (value)',
  z: 'Z (third coordinate)',
  color: 'Color (groups)',
  size: 'Size',
  chromosome: 'Chromosome',
  position: 'Position',
  p: 'p value',
  label: 'Label',
  tip: 'Tip',
  row: 'Row labels',
  column: 'Column labels',
  value: 'Value',
  error: 'Error',
  sort_by: 'Order by',
  region: 'Country',
  latitude: 'Latitude',
  longitude: 'Longitude',
};

const AGG_LABELS: Record<ComponentAgg, string> = {
  count: 'Count of rows',
  sum: 'Sum',
  mean: 'Mean',
  median: 'Median',
  min: 'Minimum',
  max: 'Maximum',
  count_distinct: 'Count of distinct values',
};

export const AGG_OPTIONS = componentAggSchema.options.map((agg) => ({ value: agg, label: AGG_LABELS[agg] }));

/** The figure with the columns that no longer fit its chart and aggregate dropped. */
function fitted(figure: FigureComponent, columns: readonly TableColumn[] | undefined): FigureComponent {
  if (columns === undefined) return fittedHierarchySet(figure, columns);
  const roles = figureRoles(figure.chart, figure.agg ?? 'count');
  const next = withoutRankedOptions(fittedHierarchySet(figure, columns));
  for (const role of FIGURE_ROLES) {
    const value = next[role];
    if (value === undefined) continue;
    const spec = roles[role];
    const fits = spec !== undefined && fittingColumns(columns, spec.kinds).some((option) => option.value === value);
    if (!fits) delete next[role];
  }
  if (!chartAggregates(next.chart)) delete next.agg;
  if (!hasTimeGrain(next, columns)) delete next.time_grain;
  if (next.chart !== 'coverage') delete next.buckets;
  if (next.chart !== 'coverage' || next.chromosome === undefined) delete next.contig;
  if (!isSampleChart(next.chart)) withoutSampleFields(next);
  if (next.chart !== 'tree') {
    delete next.layout;
    delete next.tree_file;
  }
  if (!isFieldChart(next.chart)) {
    delete next.p_threshold;
    delete next.fc_threshold;
    delete next.threshold;
  } else {
    // Their axes are drawn as the chart needs them (−log10 p): no log scale to choose.
    delete next.log_x;
    delete next.log_y;
  }
  return next;
}

/**
 * The chart builder: a chart type, the columns it reads (only those whose type fits each role),
 * the aggregate and, for binned charts, the number of bins.
 */
export function FigureForm({
  figure,
  columns,
  onChange,
}: {
  figure: FigureComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (figure: FigureComponent) => void;
}) {
  const agg = figure.agg ?? 'count';
  const roles = figureRoles(figure.chart, agg);
  const setRole = (role: FigureRole, value: string | null) => {
    const next = { ...figure };
    if (value === null || value === '') delete next[role];
    else next[role] = value;
    onChange(next);
  };
  return (
    <Stack gap="sm">
      <Group grow align="flex-start">
        <Choice
          label="Chart type"
          required
          options={CHART_TYPES.map((chart) => ({ value: chart, label: chart }))}
          value={figure.chart}
          onChange={(value) => value && onChange(fitted({ ...figure, chart: value as ChartType }, columns))}
        />
        {chartAggregates(figure.chart) && (
          <Choice
            label="Aggregation"
            required
            options={AGG_OPTIONS}
            value={agg}
            onChange={(value) => value && onChange(fitted({ ...figure, agg: value as ComponentAgg }, columns))}
          />
        )}
      </Group>
      {FIGURE_ROLES.map((role) => {
        const spec = roles[role];
        if (spec === undefined) return null;
        return (
          <Choice
            key={role}
            label={spec.label ?? ROLE_LABELS[role]}
            description={spec.required ? undefined : 'optional'}
            emptyLabel={
              columns === undefined ? 'Pick a data collection first' : spec.required ? 'Pick a column' : 'none'
            }
            options={columns === undefined ? [] : fittingColumns(columns, spec.kinds)}
            value={figure[role] ?? null}
            onChange={(value) => setRole(role, value)}
            required={spec.required}
          />
        );
      })}
      {(figure.chart === 'histogram' || figure.chart === 'violin') && (
        <NumberInput
          label="Bins"
          min={2}
          max={500}
          placeholder="30"
          value={figure.bins ?? ''}
          onChange={(value) => {
            const next = { ...figure };
            if (typeof value === 'number') next.bins = value;
            else delete next.bins;
            onChange(next);
          }}
        />
      )}
      <TimeGrainChoice figure={figure} columns={columns} onChange={onChange} />
      {isFieldChart(figure.chart) && <FieldThresholds figure={figure} onChange={onChange} />}
      <GenomeTrackOptions figure={figure} onChange={onChange} />
      <HierarchySetFields figure={figure} columns={columns} onChange={onChange} />
      {isSampleChart(figure.chart) && <SampleChartFields figure={figure} columns={columns} onChange={onChange} />}
      <RankedOptions figure={figure} onChange={onChange} />
      <LogScales figure={figure} onChange={onChange} />
    </Stack>
  );
}

/** A line or area chart over a date or timestamp x: counted by a time grain. */
function hasTimeGrain(figure: FigureComponent, columns: readonly TableColumn[] | undefined): boolean {
  if (figure.chart !== 'line' && figure.chart !== 'area') return false;
  const x = columns?.find((column) => column.name === figure.x);
  return x !== undefined && columnKind(x.type) === 'temporal';
}

/** The time grain of a line or area chart over dates: automatic (from the span) or a chosen unit. */
function TimeGrainChoice({
  figure,
  columns,
  onChange,
}: {
  figure: FigureComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (figure: FigureComponent) => void;
}) {
  if (!hasTimeGrain(figure, columns)) return null;
  return (
    <Choice
      label="Time grain"
      description="the unit the dates are counted by"
      emptyLabel="automatic (from the span)"
      options={TIME_GRAINS.map((grain) => ({ value: grain, label: grain }))}
      value={figure.time_grain ?? null}
      onChange={(value) => {
        const next = { ...figure };
        if (value === null) delete next.time_grain;
        else next.time_grain = value as TimeGrain;
        onChange(next);
      }}
    />
  );
}

/** Log scales, for the charts that draw their values on plain axes. */
function LogScales({ figure, onChange }: { figure: FigureComponent; onChange: (figure: FigureComponent) => void }) {
  if (figure.chart === 'tree') return null;
  if (isHierarchySetChart(figure.chart)) return null;
  if (isSampleChart(figure.chart) || isMapChart(figure.chart)) return null;
  const drawnAsIs =
    figure.chart === 'pie' || figure.chart === 'heatmap' || figure.chart === 'funnel' || figure.chart === 'coverage';
  if (drawnAsIs || isFieldChart(figure.chart) || isRankedDistributionChart(figure.chart)) return null;
  return (
    <Group>
      {figure.chart === 'scatter' && (
        <Checkbox
          label="Log scale on x"
          checked={figure.log_x ?? false}
          onChange={(event) => onChange({ ...figure, log_x: event.currentTarget.checked })}
        />
      )}
      <Checkbox
        label="Log scale on y"
        checked={figure.log_y ?? false}
        onChange={(event) => onChange({ ...figure, log_y: event.currentTarget.checked })}
      />
    </Group>
  );
}
