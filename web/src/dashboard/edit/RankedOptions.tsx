import { Checkbox, Group, NumberInput } from '@mantine/core';
import {
  DEFAULT_DENSITY_BINS,
  DEFAULT_RANKED_BUDGET,
  DEFAULT_STACK_BUDGET,
  DOT_RANKINGS,
  type FigureComponent,
  isRankedDistributionChart,
} from '@service/common';
import { Choice } from './Choice.js';

const RANKING_LABELS: Record<(typeof DOT_RANKINGS)[number], string> = {
  size: 'Largest size',
  color_low: 'Lowest colour (a p value)',
  color_high: 'Highest colour',
};

/** Fields only these charts read, dropped when the chart changes to another kind. */
export function withoutRankedOptions(figure: FigureComponent): FigureComponent {
  const next = { ...figure };
  if (next.chart !== 'stacked_bar') delete next.normalize;
  if (next.chart !== 'dot') delete next.rank_by;
  return next;
}

/** A whole number or nothing (the default). */
function NumberField({
  label,
  value,
  placeholder,
  min,
  max,
  onChange,
}: {
  label: string;
  value: number | undefined;
  placeholder: number;
  min: number;
  max: number;
  onChange: (value: number | undefined) => void;
}) {
  return (
    <NumberInput
      label={label}
      min={min}
      max={max}
      allowDecimal={false}
      placeholder={String(placeholder)}
      value={value ?? ''}
      onChange={(next) => onChange(typeof next === 'number' ? next : undefined)}
    />
  );
}

/** How many categories are kept, how stacks are scaled, which terms come first, the density's grid. */
export function RankedOptions({
  figure,
  onChange,
}: {
  figure: FigureComponent;
  onChange: (figure: FigureComponent) => void;
}) {
  if (!isRankedDistributionChart(figure.chart)) return null;
  const set = <K extends 'max_categories' | 'bins' | 'normalize' | 'rank_by'>(field: K, value: FigureComponent[K]) => {
    const next = { ...figure };
    if (value === undefined) delete next[field];
    else next[field] = value;
    onChange(next);
  };
  const kept = {
    lollipop: 'Categories drawn (largest |effect|)',
    diverging_bar: 'Categories drawn (largest |effect|)',
    dot: 'Terms drawn',
    stacked_bar: 'Stacked values drawn (the rest in Other)',
    funnel: 'Stages drawn',
  }[figure.chart as string];
  return (
    <Group grow align="flex-start">
      {kept !== undefined && (
        <NumberField
          label={kept}
          min={2}
          max={500}
          placeholder={figure.chart === 'stacked_bar' ? DEFAULT_STACK_BUDGET : DEFAULT_RANKED_BUDGET}
          value={figure.max_categories}
          onChange={(value) => set('max_categories', value)}
        />
      )}
      {figure.chart === 'density_contour' && (
        <NumberField
          label="Grid cells per axis"
          min={2}
          max={500}
          placeholder={DEFAULT_DENSITY_BINS}
          value={figure.bins}
          onChange={(value) => set('bins', value)}
        />
      )}
      {figure.chart === 'dot' && (
        <Choice
          label="Terms first by"
          options={DOT_RANKINGS.map((value) => ({ value, label: RANKING_LABELS[value] }))}
          required
          value={figure.rank_by ?? 'size'}
          onChange={(value) => set('rank_by', value === null ? undefined : (value as FigureComponent['rank_by']))}
        />
      )}
      {figure.chart === 'stacked_bar' && (
        <Checkbox
          mt="xl"
          label="Each sample as 100 %"
          checked={figure.normalize !== false}
          onChange={(event) => set('normalize', event.currentTarget.checked ? undefined : false)}
        />
      )}
    </Group>
  );
}
