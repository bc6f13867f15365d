// column-fit.ts's shapes, spelled out here: it imports this file.
type ColumnKind = 'numeric' | 'temporal' | 'boolean' | 'text' | 'nested';
interface RoleSpec {
  kinds: readonly ColumnKind[];
  required: boolean;
  label?: string;
}

const SCALAR: readonly ColumnKind[] = ['numeric', 'temporal', 'boolean', 'text'];
const NUMBER: readonly ColumnKind[] = ['numeric'];

/** The roles of the genome tracks: numbers along a coverage track; a tree's tips by any value. */
export function genomeTrackRoles(chart: 'coverage' | 'tree'): Partial<Record<string, RoleSpec>> {
  if (chart === 'coverage') {
    return {
      position: { kinds: NUMBER, required: true, label: 'Position' },
      y: { kinds: NUMBER, required: true, label: 'Depth (y)' },
      color: { kinds: SCALAR, required: false, label: 'Sample (a track each)' },
      chromosome: { kinds: SCALAR, required: false, label: 'Contig (several: one is drawn)' },
    };
  }
  return {
    tip: { kinds: SCALAR, required: true, label: 'Tip name (the Newick leaf labels)' },
    color: { kinds: SCALAR, required: false, label: 'Tip colour' },
  };
}
