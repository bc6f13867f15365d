import type { DashboardComponent } from '@service/common';
import { DomainError, type FieldProblem } from '../../errors.js';

/**
 * A reader's contig per coverage track (docs/dashboards.md "Coverage tracks and phylogenetic
 * trees"): each named track computed as if its `contig` were the reader's, so only that contig is
 * read and the answer's cache key is the track as drawn. Naming a component that is no coverage
 * track of contigs (one with `chromosome`) is a 400; a contig the table lacks is the component's
 * own error, as a saved `contig` would be.
 */
export function withReaderContigs(
  components: readonly DashboardComponent[],
  contigs: Readonly<Record<string, string>> | undefined,
): readonly DashboardComponent[] {
  if (contigs === undefined || Object.keys(contigs).length === 0) return components;
  const byId = new Map(components.map((component) => [component.component_id, component]));
  const problems: FieldProblem[] = Object.keys(contigs).flatMap((id) => {
    const component = byId.get(id);
    const track = component?.type === 'figure' && component.chart === 'coverage' && component.chromosome !== undefined;
    return track
      ? []
      : [{ path: `body.contigs.${id}`, message: `${id} is no coverage track with a chromosome column` }];
  });
  if (problems.length > 0) throw new DomainError('validation_failed', 'contigs of unknown tracks', problems);
  return components.map((component) => {
    const contig = contigs[component.component_id];
    return contig === undefined || component.type !== 'figure' ? component : { ...component, contig };
  });
}
