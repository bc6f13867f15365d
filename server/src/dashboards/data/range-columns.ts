import { BRUSH_FILTER_CHARTS, type DashboardComponent, readsCollection } from '@service/common';

/**
 * The columns of a collection a dashboard filters by range, most likely first: its range and
 * date-range widgets', then the x of the figures a reader brushes. A native copy of the table is
 * clustered by them, so that such filters skip most of the rows (engine/native-copies.ts).
 */
export function rangeFilteredColumns(components: readonly DashboardComponent[], collectionId: string): string[] {
  const onCollection = components.filter(
    (component) => readsCollection(component) && component.data_collection_id === collectionId,
  );
  const widgets = onCollection.flatMap((component) =>
    component.type === 'interactive' && (component.widget === 'range' || component.widget === 'date_range')
      ? [component.column]
      : [],
  );
  const brushed = onCollection.flatMap((component) =>
    component.type === 'figure' && BRUSH_FILTER_CHARTS.includes(component.chart) && component.x !== undefined
      ? [component.x]
      : [],
  );
  return [...new Set([...widgets, ...brushed])];
}
