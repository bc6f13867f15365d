import { Group, Select } from '@mantine/core';
import { componentErrorSchema, type FigureComponent, type FigureData } from '@service/common';
import { useEffect } from 'react';
import type { HistoryMode } from './filter-state.js';

/** Beyond this many contigs the picker is searchable (a draft assembly has hundreds). */
const SEARCHABLE_FROM = 10;

/** A contig's name as the server draws it: without `chr`, upper case, `M` as `MT` (docs/dashboards.md). */
const drawnName = (name: string) => {
  const bare = name.trim().replace(/^chr/i, '').toUpperCase();
  return bare === 'M' ? 'MT' : bare;
};

/**
 * Which contig a coverage track of contigs draws, for its reader (docs/dashboards.md "Coverage
 * tracks and phylogenetic trees"): the answer's contigs, the drawn one chosen. Choosing the track's
 * own default takes the reader's choice out of the address bar again.
 */
export function ContigPicker({
  component,
  data,
  onContig,
}: {
  component: FigureComponent;
  data: FigureData;
  onContig: (contig: string | null, mode?: HistoryMode) => void;
}) {
  const contigs = data.contigs ?? [];
  if (contigs.length < 2 || data.contig === undefined) return null;
  const own = component.contig === undefined ? contigs[0] : drawnName(component.contig);
  return (
    // Room on the right for the cell's menu.
    <Group justify="flex-end" pr={28} mb={4}>
      <Select
        size="xs"
        label="Contig"
        aria-label={`Contig of ${component.title || 'the coverage track'}`}
        data={contigs}
        value={data.contig}
        allowDeselect={false}
        searchable={contigs.length >= SEARCHABLE_FROM}
        onChange={(contig) => {
          if (contig !== null) onContig(contig === own ? null : contig);
        }}
        comboboxProps={{ withinPortal: true }}
        w={160}
      />
    </Group>
  );
}

/**
 * Drops a reader's contig that the track's table no longer has (its answer an error at `contig`),
 * so a shared link from before draws the track's own contig rather than an error.
 */
export function useStaleContigs(
  contigs: Readonly<Record<string, string>>,
  answers: { components: ReadonlyMap<string, unknown>; waiting: ReadonlySet<string> },
  setContig: (componentId: string, contig: string | null, mode?: HistoryMode) => void,
): void {
  useEffect(() => {
    for (const id of Object.keys(contigs)) {
      if (answers.waiting.has(id)) continue;
      const failed = componentErrorSchema.safeParse(answers.components.get(id));
      if (failed.success && failed.data.error.field === 'contig') setContig(id, null, 'replace');
    }
  }, [contigs, answers, setContig]);
}
