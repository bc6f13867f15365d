import { useComputedColorScheme } from '@mantine/core';
import {
  BRUSH_FILTER_CHARTS,
  brushedInterval,
  brushedRange,
  brushesGenome,
  type ChartBrushArea,
  type ChartClick,
  type ColorAssignment,
  categoriesTurned,
  chartDescription,
  chartOption,
  cladeTips,
  clickedCategory,
  clickedItemFilter,
  type DashboardFilterValue,
  drawnItems,
  type FigureComponent,
  type FigureData,
  fitCategories,
  fitLegend,
  type ItemClick,
  isHierarchySetChart,
  isMapChart,
  legendRows,
  MAX_BRUSHED_IDS,
  selectedIndices,
  toggleCategory,
  toggleClade,
} from '@service/common';
import { type EChartsType, init } from '@service/common/echarts-registry';
import { worldMapReady } from '@service/common/world-map-loader';
import type { EChartsOption } from 'echarts';
import { type ReactNode, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import { brushedPositions } from './brush-range.js';
import { brushedBox, brushedIds, isBoxBrush, isIdBrush } from './brushed-ids.js';
import { chartTargets, drawnColors, selectableItems, showSelection } from './chart-marks.js';
import { MapControls } from './MapControls.js';
import { atMapView, brushedGeoBox, mapClickFilter, mapView, mapZoom, regionTargets } from './map-events.js';
import { useElementWidth } from './useElementWidth.js';
import { useInSight } from './useInSight.js';

export interface FigureViewProps {
  component: FigureComponent;
  data: FigureData;
  /** The figure's cross-filter changed: categories clicked (bar, pie) or x brushed; null clears it. */
  onFilter?: (value: DashboardFilterValue | null) => void;
  /** The figure's current cross-filter (from the address bar): clicks toggle against it, the brush shows it. */
  filterValue?: DashboardFilterValue | null;
  /** Draw the title inside the chart (default); false when the cell already heads it with the title. */
  withTitle?: boolean;
  /** The dashboard's colour per value; without it the chart colours its values in their order. */
  colors?: ColorAssignment | undefined;
}

/** Fired on the figure's element each time ECharts has finished drawing (tests wait for it). */
export const CHART_RENDERED_EVENT = 'chart-rendered';

/**
 * A figure drawn by ECharts from common/'s option (the export serves the same option). The element
 * tells tests what it shows: `data-chart-items` (rows drawn), `data-chart-rows` (table rows matching
 * the filters), `data-chart-state` (`drawing`, then `rendered` when ECharts says it has finished,
 * or `waiting` while out of sight: it draws once scrolled to), `data-in-sight` (within 200 px of
 * the viewport, as last observed), `data-legend-rows` (the lines its legend takes) and, on bar and
 * pie charts, `data-chart-targets` (JSON `[{label, x, y}]`: a point inside each bar or slice, in the
 * element's pixels) and `data-chart-colors` (each series' or slice's colour).
 */
export function FigureView({ component, data, onFilter, filterValue, withTitle = true, colors }: FigureViewProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | null>(null);
  // Read at once, not in an effect: a first draw in the wrong scheme would flash (no server rendering here).
  const theme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const built = useMemo(
    () => chartOption(component, data, { theme, title: withTitle, ...(colors ? { colors } : {}) }),
    [component, data, theme, withTitle, colors],
  );
  // The legend wraps onto the lines the cell's width needs, and category labels that would run
  // together are turned (drawn once that width is known).
  const width = useElementWidth(element);
  const rows = legendRows(built, width);
  const turned = categoriesTurned(built, width);
  const option = useMemo(() => fitCategories(fitLegend(built, rows), turned), [built, rows, turned]);
  const measured = width !== undefined;
  const description = useMemo(() => chartDescription(component, data), [component, data]);
  // Why a brush set no filter (more ids than a filter lists): said under the chart, not cut silently.
  const [notice, setNotice] = useState<string | null>(null);
  // A map's view: "Reset view" draws it again whole; on a point map a drag moves it while `moving`.
  const [resets, setResets] = useState(0);
  const [moving, setMoving] = useState(false);
  // Event handlers read the latest props without binding them again.
  const latest = useRef<Latest>({ component, data, onFilter, filterValue, option, moving });
  latest.current = { component, data, onFilter, filterValue, option, moving };

  useChart(element, chart, latest, setNotice);

  const brushable = isBrushable(component) && onFilter !== undefined;
  const filterKey = JSON.stringify(filterValue ?? null);
  const inSight = useInSight(element);
  useDrawing(chart, element, latest, { option, brushable, measured, inSight, resets, moving, filterKey });

  const chartElement = (
    <div
      ref={element}
      role="img"
      aria-label={description}
      data-chart-items={drawnItems(data)}
      data-chart-rows={data.total_rows}
      data-chart-theme={theme}
      data-in-sight={inSight}
      data-legend-rows={rows}
      // The size inline (a page without the app's styles still draws it); the class adds the
      // minimum height, taller on narrow screens (styles.css).
      className="figure-chart"
      style={{ width: '100%', height: '100%' }}
    />
  );
  const controls = isMapChart(component.chart) ? (
    <MapControls
      component={component}
      moving={moving}
      onMoving={setMoving}
      onReset={() => setResets((count) => count + 1)}
    />
  ) : null;
  return (
    <Framed controls={controls} notice={notice}>
      {chartElement}
    </Framed>
  );
}

/** The chart under a map's controls (when it has them), and the notice under it (when there is one). */
function Framed({ controls, notice, children }: { controls: ReactNode; notice: string | null; children: ReactNode }) {
  const noticeLine =
    notice === null ? null : (
      <div role="status" className="figure-notice">
        {notice}
      </div>
    );
  if (controls === null && noticeLine === null) return children;
  return (
    <>
      {controls}
      {controls === null ? children : <div style={{ flex: 1, minHeight: 0 }}>{children}</div>}
      {noticeLine}
    </>
  );
}

/** The charts that have drawn an option (ECharts' `getOption()` would say, by copying the whole option, data included). */
const drawnCharts = new WeakSet<EChartsType>();

/**
 * Draws the option once the element's width is known and each time it changes (a map where the
 * reader took it, unless "Reset view" asked for the whole world), if in sight: out of sight the
 * chart keeps its drawing, marked `waiting`, and draws the latest option once scrolled to; lets a
 * point map's drag brush or move it; shows a filter set elsewhere (a chip removed, the address
 * bar) as the selection and brush.
 */
function useDrawing(
  chart: RefObject<EChartsType | null>,
  element: RefObject<HTMLDivElement | null>,
  latest: RefObject<Latest>,
  state: {
    option: EChartsOption;
    brushable: boolean;
    measured: boolean;
    inSight: boolean;
    resets: number;
    moving: boolean;
    filterKey: string;
  },
): void {
  const { option, brushable, measured, inSight, resets, moving, filterKey } = state;
  const drawnResets = useRef(0);
  // What the chart shows: scrolled to again, it has nothing to draw unless that changed meanwhile.
  const shown = useRef<{ option: EChartsOption; brushable: boolean } | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the refs are stable; handlers read `latest`.
  useEffect(() => {
    const instance = chart.current;
    const target = element.current;
    if (instance === null || target === null || !measured) return;
    const current = shown.current?.option === option && shown.current.brushable === brushable;
    if (current && resets === drawnResets.current) return;
    if (!inSight) {
      target.dataset.chartState = 'waiting';
      return;
    }
    shown.current = { option, brushable };
    target.dataset.chartState = 'drawing';
    const resetting = resets !== drawnResets.current;
    drawnResets.current = resets;
    const draw = () => {
      if (instance.isDisposed()) return;
      const isMap = isMapChart(latest.current.component.chart);
      const view = isMap && !resetting ? mapView(instance) : undefined;
      // A chart appears at once: a grow-in animation of each chart of a tab would hold the CPU for
      // every frame of it while the next charts wait to draw. Changes still animate.
      const first = !drawnCharts.has(instance);
      const drawn = atMapView(option, view);
      // A new option makes a new brush, which must take the cursor again: set lazily, the option is
      // laid out and drawn once, with the cursor, instead of once for each (a whole update each).
      instance.setOption(first ? { ...drawn, animation: false } : drawn, { notMerge: true, lazyUpdate: brushable });
      drawnCharts.add(instance);
      if (brushable) takeBrush(instance, latest.current, { fresh: true });
      if (isMap) target.dataset.mapZoom = String(mapZoom(instance));
      select(instance, latest.current);
    };
    // A map draws once the world's countries are registered (their own chunk, loaded once).
    if (isMapChart(latest.current.component.chart)) void worldMapReady().then(draw);
    else draw();
  }, [option, brushable, measured, inSight, resets]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `takeBrush` reads `moving` from `latest`.
  useEffect(() => {
    const instance = chart.current;
    if (instance === null || !brushable || !drawnCharts.has(instance)) return;
    takeBrush(instance, latest.current);
  }, [moving, brushable]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the refs are stable; `filterKey` is the filter.
  useEffect(() => {
    const instance = chart.current;
    if (instance === null || filterKey !== JSON.stringify(latest.current.filterValue ?? null)) return;
    select(instance, latest.current);
    if (brushable) drawBrush(instance, brushedPositions(latest.current));
  }, [filterKey, brushable]);
}

/** An embedding brushes its x column; a computed PCA's axes are no column to filter. */
function isBrushable(component: FigureComponent): boolean {
  return (
    (BRUSH_FILTER_CHARTS.includes(component.chart) || brushesGenome(component) || component.chart === 'point_map') &&
    (component.pca_columns === undefined || isIdBrush(component))
  );
}

/**
 * A drag brushes (no toolbox button to press first), and the active range stays drawn; on a point
 * map the reader moves, the brush lets go of the drag, which then moves the map. `fresh`: the
 * option was just set, so no range is drawn yet and none needs clearing.
 */
function takeBrush(instance: EChartsType, latest: Latest, { fresh = false } = {}) {
  const shape = isIdBrush(latest.component) || isBoxBrush(latest.component) ? 'rect' : 'lineX';
  instance.dispatchAction({
    type: 'takeGlobalCursor',
    key: 'brush',
    brushOption: { brushType: latest.moving ? false : shape, brushMode: 'single' },
  });
  const range = brushedPositions(latest);
  if (!(fresh && range === null)) drawBrush(instance, range);
}

/**
 * Keeps in `chart` the ECharts instance drawing into the element while it is mounted: it reports when it
 * has drawn, turns clicks and brushes into the figure's filter, and follows the element's size.
 */
function useChart(
  element: RefObject<HTMLDivElement | null>,
  chart: RefObject<EChartsType | null>,
  latest: RefObject<Latest>,
  setNotice: (notice: string | null) => void,
): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: made once; the handlers read `latest`.
  useEffect(() => {
    const target = element.current;
    if (target === null) return;
    const instance = init(target, null, { renderer: 'canvas' });
    chart.current = instance;
    instance.on('finished', () => {
      // A chart out of sight (resized, say) still shows an earlier option: it is not the latest drawn.
      if (target.dataset.chartState !== 'waiting') markRendered(instance, target, latest.current);
    });
    instance.on('click', (params) => filterByClick(instance, latest, params as ChartClick & ItemClick));
    instance.on('brushEnd', (params) => filterByBrush(instance, latest.current, params, setNotice));
    // How far a map is zoomed in, for a test to wait for (1 once drawn again whole).
    instance.on('georoam', () => {
      target.dataset.mapZoom = String(mapZoom(instance));
    });
    // The cell's size changes with the grid and the window. A hidden tab's chart measures 0 and
    // keeps its drawing; shown again at the size it had, it has nothing to lay out again.
    const observer = new ResizeObserver(() => {
      const { clientWidth: width, clientHeight: height } = target;
      if (width === 0 || height === 0) return;
      if (width !== instance.getWidth() || height !== instance.getHeight()) instance.resize();
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);
}

/** What the chart's event handlers read: the latest props and option, without binding them again. */
type Latest = Pick<FigureViewProps, 'component' | 'data' | 'onFilter' | 'filterValue'> & {
  option: EChartsOption;
  /** A point map's drag moves it instead of brushing. */
  moving?: boolean;
};

/** ECharts has drawn: the element says where the marks are, their colours, and that it is rendered. */
function markRendered(instance: EChartsType, target: HTMLDivElement, latest: Latest): void {
  const { component, option } = latest;
  const size = { width: target.clientWidth, height: target.clientHeight };
  const targets = [
    ...chartTargets(component.chart, option, instance, size),
    ...regionTargets(component, option, instance),
  ];
  if (targets.length > 0) target.dataset.chartTargets = JSON.stringify(targets);
  else delete target.dataset.chartTargets;
  target.dataset.chartColors = JSON.stringify(drawnColors(option));
  target.dataset.chartState = 'rendered';
  target.dispatchEvent(new CustomEvent(CHART_RENDERED_EVENT, { bubbles: true }));
}

/** A click sets the figure's filter: a category toggled, a clade, or a node, flow or intersection. */
function filterByClick(instance: EChartsType, latest: { current: Latest }, params: ChartClick & ItemClick): void {
  const { component, data, onFilter, filterValue } = latest.current;
  if (component.chart === 'choropleth') {
    const next = mapClickFilter(data, filterValue, params as { name?: unknown });
    if (next !== undefined) onFilter?.(next);
    select(instance, latest.current);
    return;
  }
  if (isHierarchySetChart(component.chart)) {
    // A node, flow or intersection: its value replaces the filter (a second click clears it).
    const next = clickedItemFilter(params, filterValue);
    if (next !== undefined) onFilter?.(next);
    return;
  }
  const hit = clickedCategory(component, data, params);
  if (hit !== undefined) onFilter?.(toggleCategory(filterValue, hit.value));
  const clade = component.chart === 'tree' ? cladeTips(data, params.data) : undefined;
  if (clade !== undefined) onFilter?.(toggleClade(filterValue, clade));
  // ECharts toggled the clicked item's selection itself; the filter says what is selected.
  select(instance, latest.current);
}

/** A brush sets the figure's filter: the ids brushed, a genomic interval, or a range of x. */
function filterByBrush(
  instance: EChartsType,
  latest: Latest,
  params: unknown,
  setNotice: (notice: string | null) => void,
): void {
  const { component, data, onFilter } = latest;
  const areas = (params as { areas?: ChartBrushArea[] }).areas;
  if (component.chart === 'point_map') {
    onFilter?.(brushedGeoBox(instance, areas));
    return;
  }
  if (isBoxBrush(component)) {
    const fromPixel = (panel: number, pixel: [number, number]) =>
      instance.convertFromPixel({ gridIndex: panel }, pixel) as [number, number] | undefined;
    const inPanel = (panel: number, pixel: [number, number]) => instance.containPixel({ gridIndex: panel }, pixel);
    onFilter?.(brushedBox(component, (areas ?? []) as { range?: unknown }[], fromPixel, inPanel));
    return;
  }
  if (isIdBrush(component)) {
    const toPixel = (panel: number, point: [number, number]) =>
      instance.convertToPixel({ gridIndex: panel }, point) as [number, number] | undefined;
    const brushed = brushedIds(data, (areas ?? []) as { range?: unknown }[], toPixel);
    if ('tooMany' in brushed) {
      setNotice(
        `${brushed.tooMany.toLocaleString('en-US')} points brushed: a filter lists at most ${MAX_BRUSHED_IDS.toLocaleString('en-US')} ids, brush fewer`,
      );
      return;
    }
    setNotice(null);
    onFilter?.(brushed.value);
    return;
  }
  // A Manhattan plot's brush spans chromosomes: a genomic interval, not a range of the axis.
  onFilter?.(brushesGenome(component) ? brushedInterval(data, areas) : brushedRange(component, data, areas));
}

/** Shows the categories of the figure's click filter selected (a bar keeps all its bars). */
function select(
  instance: EChartsType,
  {
    component,
    data,
    filterValue,
    option,
  }: Pick<FigureViewProps, 'component' | 'data' | 'filterValue'> & { option: EChartsOption },
): void {
  const series = Array.isArray(option.series) ? option.series.length : 1;
  showSelection(
    instance,
    selectableItems(component.chart, option),
    series,
    selectedIndices(component, data, filterValue),
  );
}

/** Shows a brush filter's range on the chart (dispatched brushes fire no `brushEnd`: no loop). */
function drawBrush(instance: EChartsType, range: [number, number] | null | undefined): void {
  if (range === undefined) return;
  instance.dispatchAction({
    type: 'brush',
    areas: range === null ? [] : [{ brushType: 'lineX', xAxisIndex: 0, coordRange: range }],
  });
}
