import type { ComponentData, ComponentError, FigureData, ImageComponent, TableComponent } from '@service/common';
import type { Narrowing } from '../filters/narrowing.js';
import type { TableSnapshot } from '../sql/columns.js';
import type { TableReader } from '../sql/reader.js';
import { cardData } from './cards.js';
import { UnsuitableData } from './data-problems.js';
import { figureData } from './figures.js';
import { type AnalyticComponent, type ComputeOptions, fitProblems } from './fit.js';
import { galleryPage } from './gallery.js';
import { interactiveData } from './options.js';
import { onlyColumns, page } from './paging.js';
import { selectionCarry, tableExtras } from './table-extras.js';

/** A component a dashboard computes from its collection's rows. */
export type DataComponent = AnalyticComponent | TableComponent | ImageComponent;

/** A component-level error: the others still draw. */
export function componentError(code: string, message: string, field: string | null = null): ComponentError {
  return { error: { code, message, field } };
}

const EMPTY_FIGURE: FigureData = { columns: [], rows: [], sampled: false, total_rows: 0 };

/**
 * One component's data over a snapshot, narrowed by the dashboard's filters. A component whose
 * columns the table no longer has (or no longer with a type it can use) answers an error in its
 * slot rather than failing the dashboard.
 */
export async function componentData(
  reader: TableReader,
  source: TableSnapshot,
  component: DataComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<ComponentData> {
  if (component.type === 'table') {
    const shown = component.columns === undefined ? source : onlyColumns(source, component.columns);
    const carry = selectionCarry(source, shown, component);
    const query = { limit: component.page_size, skip: 0, sort: usableSort(shown, component), carry };
    const [answer, extras] = await Promise.all([
      page(reader, shown, query, narrowing, options.shared),
      tableExtras(reader, source, shown, component, options.memo),
    ]);
    return { ...answer, ...extras };
  }
  if (component.type === 'image') {
    return galleryPage(reader, source, component, { skip: 0 }, narrowing, options.shared).catch(unsuitable);
  }
  if (source.snapshot === null && component.type === 'figure') return EMPTY_FIGURE;
  if (source.snapshot !== null) {
    const [problem] = fitProblems(source.byName, component);
    if (problem !== undefined) return componentError(problem.code, problem.message, problem.field);
  }
  switch (component.type) {
    case 'figure':
      return figureData(reader, source, component, narrowing, options).catch(unsuitable);
    case 'card':
      return cardData(reader, source, component, narrowing, options);
    case 'interactive':
      return interactiveData(reader, source, component, narrowing, options);
  }
}

function unsuitable(error: unknown): ComponentError {
  if (error instanceof UnsuitableData) return componentError('unsuitable_column', error.message, error.field);
  throw error;
}

/** The saved sort, without columns the table (or the component's column list) no longer has. */
function usableSort(source: TableSnapshot, component: TableComponent) {
  return component.sort.filter((key) => source.byName.has(key.column));
}
