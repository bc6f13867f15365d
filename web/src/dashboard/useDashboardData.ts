import {
  type AsOf,
  type DashboardComponent,
  type DashboardDataRequestInput,
  type DashboardFilter,
  dashboardDataEnvelopeSchema,
  dashboardDataLineEnvelopeSchema,
} from '@service/common';
import { dequal } from 'dequal/lite';
import { useEffect, useMemo, useReducer, useRef } from 'react';
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
  | { type: 'done'; ids: readonly string[] }
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
    case 'done': {
      // Those asked whose line never came (not computed) wait no longer; those not asked yet still do.
      const waiting = new Set(state.waiting);
      for (const id of action.ids) waiting.delete(id);
      return { ...state, waiting };
    }
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
 * Every data component's data for the filters and `as_of`, from `POST /dashboards/{id}/data`,
 * streamed (NDJSON) so each component is drawn as soon as its line arrives. The page opens with
 * every component; after a change only those `inSight` are asked for (all of them when it is
 * null), and the others wait, keeping what they hold, until they come into sight, as Grafana's
 * panels do. A change of filters aborts the requests still running and starts again. `only`: the components
 * the server computes, when not all of the tab's (those of a folded section are not); `contigs`:
 * the contig a reader chose per coverage track; `preview`: components as a past revision saved
 * them, computed instead of the saved ones (History's "show with data").
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
  inSight: ReadonlySet<string> | null = null,
): DashboardData {
  const [state, dispatch] = useReducer(dataReducer, EMPTY_DATA);
  // The effects run again when what is asked changes, not when the same thing is rebuilt.
  const request = JSON.stringify(requestBody(filters, asOf, tabId, only, contigs, preview));
  const ids = componentIds.join('\n');
  const asked = `${request}\n${ids}`;
  const due = inSight === null ? ids : componentIds.filter((id) => inSight.has(id)).join('\n');
  useAskedInSight(dashboardId, { request, ids, asked, due }, dispatch);
  useRefresh(dashboardId, request, dispatch, refresh);
  return useMemo(() => waitingUntilAsked(state, asked, ids), [state, asked, ids]);
}

/** The body of the data request, components aside. */
function requestBody(
  filters: readonly DashboardFilter[],
  asOf: AsOf | null,
  tabId: string | null,
  only: readonly string[] | undefined,
  contigs: Readonly<Record<string, string>>,
  preview: readonly DashboardComponent[] | undefined,
): DashboardDataRequestInput {
  const read = {
    filters: [...filters],
    ...(asOf === null ? {} : { as_of: asOf }),
    ...(Object.keys(contigs).length === 0 ? {} : { contigs: { ...contigs } }),
  };
  // Components as saved in a past revision: exactly these are computed, standing in for the saved ones.
  if (preview !== undefined && preview.length > 0) return { ...read, preview: [...preview] };
  return {
    ...read,
    // One tab's components are computed, not the whole dashboard's.
    ...(tabId === null ? {} : { tab_id: tabId }),
    ...(only === undefined || only.length === 0 ? {} : { components: [...only] }),
  };
}

/** What the view asks: the request's body (JSON), the components it reads, both (the question), those in sight. */
interface Question {
  request: string;
  ids: string;
  asked: string;
  due: string;
}

/**
 * Asks for the components in sight that have not been asked for yet with the question, each time
 * some come into sight; a new question stops the requests of the last and starts again with every
 * component waiting. The first question asks for every component: the page opens whole (scrolling
 * then waits for nothing), with the request the boot script may have sent already
 * (boot/first-screen.ts); the changes after it ask for what is in sight.
 */
function useAskedInSight(dashboardId: string, question: Question, dispatch: (action: Action) => void): void {
  const api = useApi();
  const { request, ids, asked } = question;
  // The question each component was asked for with, the requests running, the first question.
  const requested = useRef(new Map<string, string>());
  const running = useRef(new Set<AbortController>());
  const first = useRef<string | null>(null);
  if (first.current === null && ids !== '') first.current = asked;
  const due = first.current === asked ? ids : question.due;

  useEffect(() => {
    if (ids === '') return;
    dispatch({ type: 'start', ids: ids.split('\n'), asked });
    return () => {
      for (const controller of running.current) controller.abort();
      running.current.clear();
      requested.current.clear();
    };
  }, [ids, asked, dispatch]);

  useEffect(() => {
    const pending = (due === '' ? [] : due.split('\n')).filter((id) => requested.current.get(id) !== asked);
    if (pending.length === 0) return;
    for (const id of pending) requested.current.set(id, asked);
    // All of them: the request as it reads without sight, its version the whole answer's.
    const whole = pending.length === ids.split('\n').length;
    const json = whole ? JSON.parse(request) : { ...JSON.parse(request), components: pending };
    const controller = new AbortController();
    running.current.add(controller);
    api
      .stream(
        dashboardDataPath(dashboardId),
        { method: 'POST', json, reads: true, signal: controller.signal },
        (value) => {
          if (controller.signal.aborted) return;
          for (const action of actionsOfAnswer(value))
            dispatch(action.type === 'version' && !whole ? { ...action, merge: true } : action);
        },
      )
      .then(
        () => {
          if (!controller.signal.aborted) dispatch({ type: 'done', ids: pending });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) dispatch({ type: 'failed', error });
        },
      )
      .finally(() => running.current.delete(controller));
  }, [api, dashboardId, request, ids, asked, due, dispatch]);
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
