import {
  brushesGenome,
  type DashboardFilterValue,
  type FigureComponent,
  type FigureData,
  intervalPositions,
} from '@service/common';
import { isBoxBrush, isIdBrush } from './brushed-ids.js';

/**
 * Where a figure's brush filter is drawn back on the chart (a filter set elsewhere, a link opened):
 * the positions along x that ECharts' `brush` action takes.
 */

/**
 * Where a brush filter sits along x: a genomic interval through the chromosomes' offsets, else its
 * range; null for none, undefined when there is nothing to draw back.
 */
export function brushedPositions({
  component,
  data,
  filterValue,
}: {
  component: FigureComponent;
  data: FigureData;
  filterValue?: DashboardFilterValue | null | undefined;
}): [number, number] | null | undefined {
  // Ids and rectangles are no range along x to draw back: the reader's rectangle stays until the filter goes.
  if (isIdBrush(component) || isBoxBrush(component))
    return filterValue === null || filterValue === undefined ? null : undefined;
  return brushesGenome(component) ? intervalPositions(data, filterValue) : brushRangeOf(filterValue);
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A time axis position as ECharts parses it: a bare date is local midnight, other text an ISO time. */
function axisPosition(bound: unknown): unknown {
  if (typeof bound !== 'string') return bound;
  const day = DAY.exec(bound);
  return day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime() : Date.parse(bound);
}

/** A brush filter's [low, high] as positions on a value or time axis; null when it has none. */
function brushRangeOf(value: DashboardFilterValue | null | undefined): [number, number] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [low, high] = value.map(axisPosition);
  return typeof low === 'number' && typeof high === 'number' && Number.isFinite(low) && Number.isFinite(high)
    ? [low, high]
    : null;
}
