import { Group, NumberInput } from '@mantine/core';
import {
  type ChartType,
  DEFAULT_FC_THRESHOLD,
  DEFAULT_GENOME_THRESHOLD,
  DEFAULT_P_THRESHOLD,
  type FigureComponent,
} from '@service/common';

type Threshold = 'p_threshold' | 'fc_threshold' | 'threshold';

const FIELD_CHARTS: readonly ChartType[] = ['volcano', 'ma', 'manhattan', 'qq'];

export const isFieldChart = (chart: ChartType) => FIELD_CHARTS.includes(chart);

/** The thresholds each field chart draws (and classes its points by); empty keeps the default. */
const THRESHOLDS: Partial<Record<ChartType, { field: Threshold; label: string; placeholder: number; min: number }[]>> =
  {
    volcano: [
      { field: 'p_threshold', label: 'Significant below p', placeholder: DEFAULT_P_THRESHOLD, min: 0 },
      { field: 'fc_threshold', label: 'Fold change at least ±', placeholder: DEFAULT_FC_THRESHOLD, min: 0 },
    ],
    ma: [
      { field: 'p_threshold', label: 'Significant below p', placeholder: DEFAULT_P_THRESHOLD, min: 0 },
      { field: 'fc_threshold', label: 'Fold change at least ±', placeholder: DEFAULT_FC_THRESHOLD, min: 0 },
    ],
    manhattan: [
      { field: 'threshold', label: 'Genome-wide significance', placeholder: DEFAULT_GENOME_THRESHOLD, min: 0 },
    ],
  };

export function FieldThresholds({
  figure,
  onChange,
}: {
  figure: FigureComponent;
  onChange: (figure: FigureComponent) => void;
}) {
  const thresholds = THRESHOLDS[figure.chart] ?? [];
  if (thresholds.length === 0) return null;
  return (
    <Group grow align="flex-start">
      {thresholds.map(({ field, label, placeholder, min }) => (
        <NumberInput
          key={field}
          label={label}
          min={min}
          max={field === 'fc_threshold' ? undefined : 1}
          decimalScale={12}
          placeholder={String(placeholder)}
          value={figure[field] ?? ''}
          onChange={(value) => {
            const next = { ...figure };
            if (typeof value === 'number' && (value > 0 || (field === 'fc_threshold' && value === 0)))
              next[field] = value;
            else delete next[field];
            onChange(next);
          }}
        />
      ))}
    </Group>
  );
}
