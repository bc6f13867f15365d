import { Checkbox, Group, MultiSelect, NumberInput, Stack } from '@mantine/core';
import { type ChartType, DEFAULT_MATRIX_ROW_BUDGET, type FigureComponent, type TableColumn } from '@service/common';
import { Choice } from './Choice.js';
import { type ColumnKind, fittingColumns } from './column-fit.js';

const SAMPLE_CHARTS: readonly ChartType[] = ['clustered_heatmap', 'embedding', 'rarefaction', 'oncoplot'];

export const isSampleChart = (chart: ChartType) => SAMPLE_CHARTS.includes(chart);

/** Drops the fields only these charts read (the chart type changed to another). */
export function withoutSampleFields(figure: FigureComponent): void {
  for (const field of [
    'row',
    'column',
    'value',
    'matrix_columns',
    'scale',
    'cluster_rows',
    'cluster_columns',
    'annotations',
    'max_rows',
    'pca_columns',
    'dimensions',
    'band',
  ] as const) {
    delete figure[field];
  }
}

type ListField = 'matrix_columns' | 'annotations' | 'pca_columns';

/**
 * What clustered heatmaps, embeddings and rarefaction plots read besides single columns: lists of
 * columns (only those whose type fits), scaling, clustering, the row budget and the band.
 */
export function SampleChartFields({
  figure,
  columns,
  onChange,
}: {
  figure: FigureComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (figure: FigureComponent) => void;
}) {
  const set: Setter = (field, value) => {
    const next = { ...figure };
    if (value === undefined) delete next[field];
    else next[field] = value;
    onChange(next);
  };
  const list = (field: ListField, label: string, description: string, kinds: readonly ColumnKind[]) => (
    <MultiSelect
      label={label}
      description={description}
      placeholder={columns === undefined ? 'Pick a data collection first' : 'Pick columns'}
      data={columns === undefined ? [] : fittingColumns(columns, kinds)}
      value={figure[field] ?? []}
      searchable
      onChange={(value) => set(field, value.length > 0 ? value : undefined)}
    />
  );
  if (figure.chart === 'embedding') {
    const pca = list('pca_columns', 'PCA of columns', 'Instead of x and y: PCA computed on the server', ['numeric']);
    if (figure.pca_columns === undefined) return pca;
    return (
      <Stack gap="sm">
        {pca}
        <Choice
          label="Components drawn"
          options={[
            { value: '2', label: 'PC1 × PC2' },
            { value: '3', label: 'three (as pairs)' },
          ]}
          value={String(figure.dimensions ?? 2)}
          required
          onChange={(value) => set('dimensions', value === '3' ? 3 : undefined)}
        />
      </Stack>
    );
  }
  if (figure.chart === 'rarefaction') {
    return (
      <Choice
        label="Band"
        options={[
          { value: 'sd', label: '± 1 standard deviation' },
          { value: 'range', label: 'min–max' },
        ]}
        value={figure.band ?? 'sd'}
        required
        onChange={(value) => set('band', value === 'range' ? 'range' : undefined)}
      />
    );
  }
  if (figure.chart !== 'clustered_heatmap') return null;
  return (
    <Stack gap="sm">
      {list('matrix_columns', 'Matrix columns (a wide table)', 'Or column labels and value above', ['numeric'])}
      {list('annotations', 'Annotation bars', 'optional', ['text', 'numeric', 'boolean'])}
      <HeatmapOptions figure={figure} set={set} />
    </Stack>
  );
}

type Setter = <K extends keyof FigureComponent>(field: K, value: FigureComponent[K] | undefined) => void;

/** A clustered heatmap's scaling, row budget and what it clusters. */
function HeatmapOptions({ figure, set }: { figure: FigureComponent; set: Setter }) {
  return (
    <>
      <Group grow align="flex-start">
        <Choice
          label="Scaling"
          options={[
            { value: 'none', label: 'none' },
            { value: 'row', label: 'z-score per row' },
          ]}
          value={figure.scale ?? 'none'}
          required
          onChange={(value) => set('scale', value === 'row' ? 'row' : undefined)}
        />
        <NumberInput
          label="Rows kept (most variable)"
          min={2}
          max={1000}
          placeholder={String(DEFAULT_MATRIX_ROW_BUDGET)}
          value={figure.max_rows ?? ''}
          onChange={(value) => set('max_rows', typeof value === 'number' ? value : undefined)}
        />
      </Group>
      <Group>
        <Checkbox
          label="Cluster rows"
          checked={figure.cluster_rows !== false}
          onChange={(event) => set('cluster_rows', event.currentTarget.checked ? undefined : false)}
        />
        <Checkbox
          label="Cluster columns"
          checked={figure.cluster_columns !== false}
          onChange={(event) => set('cluster_columns', event.currentTarget.checked ? undefined : false)}
        />
      </Group>
    </>
  );
}
