import { Group, NumberInput } from '@mantine/core';
import { DEFAULT_COVERAGE_BUCKETS, type FigureComponent } from '@service/common';

/** A coverage track's bucket count (empty keeps the default). */
export function GenomeTrackOptions({
  figure,
  onChange,
}: {
  figure: FigureComponent;
  onChange: (figure: FigureComponent) => void;
}) {
  if (figure.chart !== 'coverage') return null;
  return (
    <Group grow align="flex-start">
      <NumberInput
        label="Buckets along the positions"
        description="each keeps its lowest and highest depth"
        min={2}
        max={20_000}
        allowDecimal={false}
        placeholder={String(DEFAULT_COVERAGE_BUCKETS)}
        value={figure.buckets ?? ''}
        onChange={(value) => {
          const next = { ...figure };
          if (typeof value === 'number' && value >= 2 && value <= 20_000) next.buckets = value;
          else delete next.buckets;
          onChange(next);
        }}
      />
    </Group>
  );
}
