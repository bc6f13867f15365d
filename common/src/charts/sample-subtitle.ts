import type { FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { plural } from './body.js';

/**
 * The line under the title of a clustered heatmap, embedding, rarefaction plot or oncoplot: what
 * its budget left out (null: the generic line applies).
 */
export function sampleSubtitle(component: FigureComponent, data: FigureData): string | undefined | null {
  switch (component.chart) {
    case 'clustered_heatmap': {
      const matrix = data.matrix;
      if (matrix === undefined) return undefined;
      const notes = [];
      if (matrix.total_rows > matrix.rows.length) {
        notes.push(
          `the ${plural(matrix.rows.length, 'most variable row')} of ${matrix.total_rows.toLocaleString('en-US')}`,
        );
      }
      if (matrix.total_columns > matrix.columns.length) {
        notes.push(
          `the first ${plural(matrix.columns.length, 'column')} of ${matrix.total_columns.toLocaleString('en-US')}`,
        );
      }
      return notes.length > 0 ? notes.join('; ') : undefined;
    }
    case 'rarefaction': {
      const total = data.total_curves ?? 0;
      const budget = component.max_categories ?? 20;
      return total > budget ? `the first ${plural(budget, 'curve')} of ${total.toLocaleString('en-US')}` : undefined;
    }
    case 'oncoplot': {
      const summary = data.oncoplot;
      if (summary === undefined) return undefined;
      const notes = [];
      if (summary.total_genes > summary.genes.length) {
        notes.push(
          `the ${plural(summary.genes.length, 'most altered gene')} of ${summary.total_genes.toLocaleString('en-US')}`,
        );
      }
      if (data.sampled) notes.push(`the ${plural(summary.samples.length, 'most altered sample')}`);
      return notes.length > 0 ? notes.join('; ') : undefined;
    }
    default:
      return null;
  }
}
