import {
  type AsOf,
  assignColors,
  type ColorAssignment,
  type DashboardComponent,
  type DashboardFilter,
  dashboardDataAnswerSchema,
  type FigureAnswer,
  figureDataSchema,
} from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import { useApi } from '../auth/session.js';
import type { DashboardData } from './useDashboardData.js';

/** The figures among the components, each with its answer when it is a figure's data. */
function figureAnswers(
  components: readonly DashboardComponent[],
  answers: ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>,
): FigureAnswer[] {
  const get = (id: string) => (answers instanceof Map ? answers.get(id) : (answers as Record<string, unknown>)[id]);
  return components.flatMap((component) => {
    if (component.type !== 'figure') return [];
    const data = figureDataSchema.safeParse(get(component.component_id));
    return data.success ? [{ component, data: data.data }] : [];
  });
}

/**
 * The dashboard's colour per value (common's `assignColors`), from its unfiltered answers so a
 * filter never moves a colour: the answers on screen while no filter is set, otherwise one
 * request of the figures without filters (the server's answer cache has them). The same function
 * over the same answers colours the exports. Undefined until known: charts use their own order.
 */
export function useDashboardColors(
  dashboardId: string,
  components: readonly DashboardComponent[],
  data: DashboardData,
  filters: readonly DashboardFilter[],
  asOf: AsOf | null,
): ColorAssignment | undefined {
  const api = useApi();
  const key = JSON.stringify([dashboardId, asOf]);
  const figureIds = components.filter((component) => component.type === 'figure').map((c) => c.component_id);
  const unfiltered = filters.length === 0 && data.error === null;
  const onScreen = useMemo(
    () => (unfiltered ? assignColors(figureAnswers(components, data.components)) : undefined),
    [unfiltered, components, data.components],
  );
  // What the unfiltered view assigned, kept for when a filter is set (same dashboard and version).
  const remembered = useRef<{ key: string; colors: ColorAssignment } | null>(null);
  const settled = unfiltered && figureIds.every((id) => !data.waiting.has(id) && data.components.has(id));
  if (settled && onScreen !== undefined) remembered.current = { key, colors: onScreen };
  const known = remembered.current?.key === key ? remembered.current.colors : undefined;
  const fetched = useQuery({
    queryKey: ['dashboard-colors', dashboardId, asOf, figureIds],
    enabled: !unfiltered && known === undefined && figureIds.length > 0,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async ({ signal }) => {
      const answer = await api.request(`/dashboards/${dashboardId}/data`, dashboardDataAnswerSchema, {
        method: 'POST',
        json: { components: figureIds, ...(asOf === null ? {} : { as_of: asOf }) },
        signal,
      });
      return assignColors(figureAnswers(components, answer.components));
    },
  });
  return useStable(onScreen ?? known ?? fetched.data);
}

/**
 * The same object while the assignment says the same: each line of the streamed answer makes a
 * new one, and a new one would redraw every chart.
 */
function useStable(colors: ColorAssignment | undefined): ColorAssignment | undefined {
  const last = useRef<{ text: string; colors: ColorAssignment | undefined }>({ text: '', colors: undefined });
  const text = colors === undefined ? '' : JSON.stringify([...colors]);
  if (text !== last.current.text) last.current = { text, colors };
  return last.current.colors;
}
