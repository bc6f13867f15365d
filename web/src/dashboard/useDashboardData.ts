import {
  type AsOf,
  type DashboardComponent,
  type DashboardDataRequestInput,
  type DashboardFilter,
  dashboardDataEnvelopeSchema,
  dashboardDataLineEnvelopeSchema,
} from '@service/common';
import { dequal } from 'dequal/lite';
import { useEffect, useMemo, useReducer } from 'react';
import { ApiError } from '../api/client.js';
import { dashboardDataPath } from '../api/wire.js';
import { useApi } from '../auth/session.js';

type Versions = Record<string, number | null>;

export interface DashboardData {
  /**
   * Each component's latest data: from the current request once its line has arrived, until then
   * from the previous one, so a filter change redraws components in place instead of blanking them.
   */
  components: ReadonlyMap<string, unknown>;
  /** Components whose data for the current filters is still on its way. */
  waiting: ReadonlySet<string>;
  /** The table version read per collection, by the current request once it said so. */
  version: Versions | null;
  /** The current request failed as a whole (its components keep nothing of an earlier answer). */
  error: unknown;
  /** What the current request asks for (its body and components), once it has started. */
  asked?: string;
}

type Action =
  | { type: 'start'; ids: readonly string[]; asked?: string }
  | { type: 'version'; version: Versions; merge?: boolean }
  | { type: 'component'; id: string; data: unknown }
  | { type: 'done' }
  | { type: 'failed'; error: unknown };

export const EMPTY_DATA: DashboardData = { components: new Map(), waiting: new Set(), version: null, error: null };

export function dataReducer(state: DashboardData, action: Action): DashboardData {
  switch (action.type) {
    case 'start':
      return { ...state, waiting: new Set(action.ids), error: null, asked: action.asked };
    case 'version':
      return { ...state, version: action.merge ? { ...state.version, ...action.version } : action.version };
    case 'component': {
      // The same answer again (a tab opened again, the same filters) keeps the object drawn, so
      // nothing is drawn again. A changed answer usually differs early (its row count, its first
      // rows), where the comparison stops.
      const held = state.components.get(action.id);
      const data = held !== undefined && dequal(held, action.data) ? held : action.data;
      const components = new Map(state.components).set(action.id, data);
      const waiting = new Set(state.waiting);
      waiting.delete(action.id);
      return { ...state, components, waiting };
    }
    case 'done':
      return { ...state, waiting: new Set() };
    case 'failed':
      return { ...state, components: new Map(), waiting: new Set(), error: action.error };
  }
}

/**
 * The actions one value of the data route's answer stands for: an NDJSON line, or the whole JSON
 * answer. Each component's data stays unread here: its cell narrows it by the component's kind.
 */
export function actionsOfAnswer(value: unknown): Action[] {
  // The whole answer first: its `version` alone would pass for the first line.
  const whole = dashboardDataEnvelopeSchema.safeParse(value);
  if (whole.success) {
    return [
      { type: 'version', version: whole.data.version },
      ...Object.entries(whole.data.components).map(([id, data]): Action => ({ type: 'component', id, data })),
    ];
  }
  const line = dashboardDataLineEnvelopeSchema.safeParse(value);
  if (line.success) {
    return 'component_id' in line.data
      ? [{ type: 'component', id: line.data.component_id, data: line.data.data }]
      : [{ type: 'version', version: line.data.version }];
  }
  throw new ApiError(0, 'unexpected_answer', "The server's answer to the dashboard's data had an unexpected shape.");
}

/** Components to ask for again (their table has a new version): each new `tick` asks once. */
export interface Refresh {
  tick: number;
  components: readonly string[];
}

/**
 * Every data component's data for the filters and `as_of`, from `POST /dashboards/{id}/data` in
 * one request, streamed (NDJSON) so each component is drawn as soon as its line arrives. A change
 * of filters aborts the request still running and starts the next. `only`: the components the server
 * computes, when not all of the tab's (those of a folded section are not); `contigs`: the contig a
 * reader chose per coverage track; `preview`: components as a past revision saved them, computed
 * instead of the saved ones (History's "show with data").
 */
export function useDashboardData(
  dashboardId: string,
  componentIds: readonly string[],
  filters: readonly DashboardFilter[],
  asOf: AsOf | null,
  tabId: string | null = null,
  only?: readonly string[],
  contigs: Readonly<Record<string, string>> = {},
  refresh?: Refresh,
  preview?: readonly DashboardComponent[],
): DashboardData {
  const api = useApi();
  const [state, dispatch] = useReducer(dataReducer, EMPTY_DATA);
  const body: DashboardDataRequestInput =
    preview === undefined || preview.length === 0
      ? {
          filters: [...filters],
          ...(asOf === null ? {} : { as_of: asOf }),
          // One tab's components are computed, not the whole dashboard's.
          ...(tabId === null ? {} : { tab_id: tabId }),
          ...(only === undefined || only.length === 0 ? {} : { components: [...only] }),
          ...(Object.keys(contigs).length === 0 ? {} : { contigs: { ...contigs } }),
        }
      : {
          // Components as saved in a past revision: exactly these are computed, standing in for the saved ones.
          filters: [...filters],
          ...(asOf === null ? {} : { as_of: asOf }),
          preview: [...preview],
          ...(Object.keys(contigs).length === 0 ? {} : { contigs: { ...contigs } }),
        };
  // The effect runs again when what is asked changes, not when the same thing is rebuilt.
  const request = JSON.stringify(body);
  const ids = componentIds.join('\n');
  const asked = `${request}\n${ids}`;
  useEffect(() => {
    const wanted = ids === '' ? [] : ids.split('\n');
    if (wanted.length === 0) return;
    const controller = new AbortController();
    dispatch({ type: 'start', ids: wanted, asked });
    api
      .stream(
        dashboardDataPath(dashboardId),
        { method: 'POST', json: JSON.parse(request), reads: true, signal: controller.signal },
        (value) => {
          if (controller.signal.aborted) return;
          for (const action of actionsOfAnswer(value)) dispatch(action);
        },
      )
      .then(
        () => {
          if (!controller.signal.aborted) dispatch({ type: 'done' });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) dispatch({ type: 'failed', error });
        },
      );
    return () => controller.abort();
  }, [api, dashboardId, ids, request, asked]);
  useRefresh(dashboardId, request, dispatch, refresh);
  return useMemo(() => waitingUntilAsked(state, asked, ids), [state, asked, ids]);
}

/**
 * The data as the view must show it: from the render where the view asks for something new (a
 * filter changed) until its request has started, every component asked for is waiting, since what
 * it holds answers the previous view. Otherwise a cell would say, for a moment, that it shows the
 * new filters (`data-drawn-key`, `aria-busy`) while it still shows the old ones.
 */
function waitingUntilAsked(state: DashboardData, asked: string, ids: string): DashboardData {
  if (ids === '' || state.asked === asked) return state;
  return { ...state, waiting: new Set(ids.split('\n')), error: null };
}

/**
 * Asks again for the components of `refresh` alone (docs/live-data.md), with the same filters and
 * version; the others keep what they show, and each is redrawn in place when its line arrives.
 */
function useRefresh(
  dashboardId: string,
  request: string,
  dispatch: (action: Action) => void,
  refresh: Refresh | undefined,
): void {
  const api = useApi();
  const tick = refresh?.tick ?? 0;
  const ids = refresh?.components.join('\n') ?? '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new tick asks once, with the filters of then.
  useEffect(() => {
    if (tick === 0 || ids === '') return undefined;
    const components = ids.split('\n');
    const controller = new AbortController();
    const body = { ...(JSON.parse(request) as Record<string, unknown>), components };
    api
      .stream(
        dashboardDataPath(dashboardId),
        { method: 'POST', json: body, reads: true, signal: controller.signal },
        (value) => {
          if (controller.signal.aborted) return;
          for (const action of actionsOfAnswer(value))
            dispatch(action.type === 'version' ? { ...action, merge: true } : action);
        },
      )
      .catch(() => undefined);
    return () => controller.abort();
  }, [api, dashboardId, tick]);
}
