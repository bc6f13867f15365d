import {
  type AsOf,
  type ColorAssignment,
  colorAssignment,
  type Dashboard,
  type DashboardComponent,
  type DashboardFilter,
  dashboardColorsAnswerSchema,
  extendColors,
  type FigureAnswer,
  figureDataSchema,
} from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import { useApi } from '../auth/session.js';
import { parseOnce } from './parse-once.js';
import type { DashboardData } from './useDashboardData.js';

/** The figures among the components, each with its answer when it is a figure's data. */
function figureAnswers(
  components: readonly DashboardComponent[],
  answers: ReadonlyMap<string, unknown>,
): FigureAnswer[] {
  return components.flatMap((component) => {
    if (component.type !== 'figure') return [];
    const data = parseOnce(figureDataSchema, answers.get(component.component_id));
    return data === undefined ? [] : [{ component, data }];
  });
}

/**
 * The dashboard's colour per value (docs/dashboards.md "Colours"): its stored palette, as the
 * server extends it from the unfiltered answers (`GET /dashboards/{id}/colors`, the same the
 * exports use). Until that answer is in, the stored palette extended the same way from the answers
 * on screen when no filter is set and every figure has one (what the server will store), else the
 * stored palette alone.
 * The request waits for the view's data: the server then finds the unfiltered answers in its cache.
 */
export function useDashboardColors(
  dashboard: Dashboard,
  data: DashboardData,
  filters: readonly DashboardFilter[],
  asOf: AsOf | null,
): ColorAssignment {
  const api = useApi();
  const { dashboard_id: dashboardId, components } = dashboard;
  const hasFigures = components.some((component) => component.type === 'figure');
  const settled = data.waiting.size === 0;
  const fetched = useQuery({
    queryKey: ['dashboard-colors', dashboardId],
    enabled: hasFigures && settled,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: ({ signal }) => api.request(`/dashboards/${dashboardId}/colors`, dashboardColorsAnswerSchema, { signal }),
  });
  const unfiltered = filters.length === 0 && asOf === null && data.error === null;
  const onScreen = useMemo(() => {
    const answers = figureAnswers(components, data.components);
    // Every figure's answer, as the server reads them (another tab's figures load when it opens).
    const whole = answers.length === components.filter((component) => component.type === 'figure').length;
    return unfiltered && whole ? extendColors(dashboard.colors, answers) : undefined;
  }, [unfiltered, dashboard.colors, components, data.components]);
  return useStable(fetched.data?.colors ?? onScreen ?? dashboard.colors);
}

/**
 * The same object while the palette says the same: each line of the streamed answer makes a new
 * list, and a new assignment would redraw every chart.
 */
function useStable(colors: readonly string[]): ColorAssignment {
  const last = useRef<{ text: string; colors: ColorAssignment } | null>(null);
  const text = JSON.stringify(colors);
  if (last.current?.text !== text) last.current = { text, colors: colorAssignment(colors) };
  return last.current.colors;
}
