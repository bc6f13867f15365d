import { Group, NumberInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { DEFAULT_COVERAGE_BUCKETS, type FigureComponent, TREE_LAYOUTS, type TreeLayout } from '@service/common';

interface Props {
  figure: FigureComponent;
  onChange: (figure: FigureComponent) => void;
}

/** A coverage track's bucket count; a tree's layout and file (empty keeps the defaults). */
export function GenomeTrackOptions({ figure, onChange }: Props) {
  if (figure.chart === 'tree') return <TreeOptions figure={figure} onChange={onChange} />;
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
      {figure.chromosome !== undefined && (
        <TextInput
          label="Contig drawn"
          description="empty draws the first in natural order (1, 2, …, X, Y, MT)"
          value={figure.contig ?? ''}
          onChange={(event) => {
            const next = { ...figure };
            const contig = event.currentTarget.value.trim();
            if (contig === '') delete next.contig;
            else next.contig = contig;
            onChange(next);
          }}
        />
      )}
    </Group>
  );
}

function TreeOptions({ figure, onChange }: Props) {
  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500} id="tree-layout-label">
          Layout
        </Text>
        <SegmentedControl
          aria-labelledby="tree-layout-label"
          data={TREE_LAYOUTS.map((layout) => ({
            value: layout,
            label: layout === 'radial' ? 'Radial' : 'Rectangular',
          }))}
          value={figure.layout ?? 'rectangular'}
          onChange={(value) => onChange({ ...figure, layout: value as TreeLayout })}
        />
      </div>
      <TextInput
        label="Tree file"
        description="its path in the run folder; empty draws the collection's newest .nwk, .newick or .tree file"
        value={figure.tree_file ?? ''}
        onChange={(event) => {
          const next = { ...figure };
          const path = event.currentTarget.value.trim();
          if (path === '') delete next.tree_file;
          else next.tree_file = path;
          onChange(next);
        }}
      />
    </Stack>
  );
}
