import {
  componentsInTab,
  DASHBOARD_GRID_COLUMNS,
  type Dashboard,
  type DashboardComponent,
  type DashboardTab,
  type LayoutItem,
  readsCollection,
  tabOf,
} from '@service/common';
import { verticalCompactor } from 'react-grid-layout/core';
import { placeComponents } from '../layout.js';
import { applyTabOp, type TabOp, withExplicitTabs } from './editor-tabs.js';

/** What edit mode changes: the content `PUT /dashboards/{id}` replaces. */
export interface Draft {
  title: string;
  description: string;
  tabs: DashboardTab[];
  components: DashboardComponent[];
  layout: LayoutItem[];
}

/** Edit mode's state: the draft with its undo and redo stacks, and the version last saved. */
export interface EditorState {
  past: Draft[];
  present: Draft;
  future: Draft[];
  /** The content as the server has it (what Cancel goes back to and "unsaved" compares with). */
  saved: Draft;
}

export type EditorAction =
  /** A new starting point (opened, reloaded, or just saved): the history is cleared. */
  | { type: 'reset'; draft: Draft }
  /** Saved: the present is now the server's version; undo still works within the session. */
  | { type: 'saved'; draft: Draft }
  /** The grid's layout of one tab (`tabId`; null: the dashboard has no tabs). */
  | { type: 'layout'; layout: readonly LayoutItem[]; tabId?: string | null }
  /** A new component, into `tabId` (the open tab), in the first free slot from row `fromRow` (the first in view). */
  | {
      type: 'add';
      component: DashboardComponent;
      size?: { w: number; h: number };
      tabId?: string | null;
      fromRow?: number;
    }
  | { type: 'tabs'; change: TabOp }
  | { type: 'update'; componentId: string; component: DashboardComponent }
  | { type: 'remove'; componentId: string }
  | { type: 'title'; title: string }
  | { type: 'undo' }
  | { type: 'redo' };

/** Steps undo can go back within one session. */
export const HISTORY_LIMIT = 100;

/** Sizes a new component takes, in grid columns and rows. */
export const NEW_SIZE: Record<DashboardComponent['type'], { w: number; h: number }> = {
  figure: { w: 6, h: 6 },
  card: { w: 3, h: 3 },
  interactive: { w: 4, h: 3 },
  table: { w: 12, h: 8 },
  text: { w: 6, h: 2 },
  multiqc: { w: 6, h: 7 },
  // A section is a header row across the grid (dashboard-sections.ts).
  section: { w: 12, h: 1 },
  image: { w: 12, h: 8 },
};

/**
 * The draft of a saved dashboard, every component with a layout entry (placed as the view shows
 * them, tab by tab) and, while there are tabs, its tab named.
 */
export function draftOf(dashboard: Pick<Dashboard, 'title' | 'description' | 'tabs' | 'components' | 'layout'>): Draft {
  const { tabs } = dashboard;
  const tabIds = tabs.length === 0 ? [null] : tabs.map((tab) => tab.tab_id);
  const layout = tabIds.flatMap((tabId) =>
    placeComponents({ components: componentsInTab(dashboard.components, tabs, tabId), layout: dashboard.layout }).map(
      ({ item }) => item,
    ),
  );
  const draft = {
    title: dashboard.title,
    description: dashboard.description,
    tabs: [...tabs],
    components: withExplicitTabs(dashboard.components, tabs),
    layout,
  };
  return { ...draft, layout: normalizeByTab(draft) };
}

/** `normalizeLayout` tab by tab: each tab has its own grid. */
export function normalizeByTab(draft: Pick<Draft, 'tabs' | 'components' | 'layout'>): LayoutItem[] {
  const tabOfId = new Map(draft.components.map((component) => [component.component_id, tabOf(component, draft.tabs)]));
  const tabIds = draft.tabs.length === 0 ? [null] : draft.tabs.map((tab) => tab.tab_id);
  return tabIds.flatMap((tabId) =>
    normalizeLayout(draft.layout.filter((item) => tabOfId.get(item.component_id) === tabId)),
  );
}

export function initialEditorState(draft: Draft): EditorState {
  return { past: [], present: draft, future: [], saved: draft };
}

/**
 * The layout the grid can hold: entries clamped into the 12 columns (`x + w` at most 12), at least
 * one column and row, overlaps pushed down (the first in reading order keeps its place), then
 * compacted upwards as the editor's grid (react-grid-layout) does, so what is saved is what was shown.
 */
export function normalizeLayout(items: readonly LayoutItem[]): LayoutItem[] {
  const clamped = items.map((item) => {
    const w = Math.min(Math.max(1, Math.round(item.w)), DASHBOARD_GRID_COLUMNS);
    const x = Math.min(Math.max(0, Math.round(item.x)), DASHBOARD_GRID_COLUMNS - w);
    return {
      component_id: item.component_id,
      x,
      y: Math.max(0, Math.round(item.y)),
      w,
      h: Math.max(1, Math.round(item.h)),
    };
  });
  clamped.sort((a, b) => a.y - b.y || a.x - b.x);
  const settled: LayoutItem[] = [];
  for (const item of clamped) {
    let y = item.y;
    for (;;) {
      const blocker = settled.find((other) => overlaps({ ...item, y }, other));
      if (blocker === undefined) break;
      y = blocker.y + blocker.h;
    }
    settled.push({ ...item, y });
  }
  const compacted = verticalCompactor.compact(
    settled.map(({ component_id, ...place }) => ({ i: component_id, ...place })),
    DASHBOARD_GRID_COLUMNS,
  );
  return [...compacted]
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map(({ i, x, y, w, h }) => ({ component_id: i, x, y, w, h }));
}

function overlaps(a: LayoutItem, b: LayoutItem): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function sameLayout(a: readonly LayoutItem[], b: readonly LayoutItem[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(b.map((item) => [item.component_id, item]));
  return a.every((item) => {
    const other = byId.get(item.component_id);
    return other !== undefined && other.x === item.x && other.y === item.y && other.w === item.w && other.h === item.h;
  });
}

export function sameDraft(a: Draft, b: Draft): boolean {
  return (
    a.title === b.title &&
    a.description === b.description &&
    JSON.stringify(a.tabs) === JSON.stringify(b.tabs) &&
    JSON.stringify(a.components) === JSON.stringify(b.components) &&
    sameLayout(a.layout, b.layout)
  );
}

/** A component id not used in `draft` yet: `figure-1`, `figure-2`, … */
export function freshComponentId(draft: Pick<Draft, 'components'>, type: DashboardComponent['type']): string {
  const used = new Set(draft.components.map((component) => component.component_id));
  let n = 1;
  while (used.has(`${type}-${n}`)) n += 1;
  return `${type}-${n}`;
}

function change(state: EditorState, present: Draft): EditorState {
  if (sameDraft(state.present, present)) return state;
  return { ...state, past: [...state.past, state.present].slice(-HISTORY_LIMIT), present, future: [] };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  const { present } = state;
  switch (action.type) {
    case 'reset':
      return initialEditorState(action.draft);
    case 'saved':
      return { ...state, present: action.draft, saved: action.draft };
    case 'layout': {
      // Only the tab's own entries are replaced: the grid shows one tab at a time.
      const inTab = new Set(
        componentsInTab(present.components, present.tabs, action.tabId ?? null).map((c) => c.component_id),
      );
      const kept = present.layout.filter((item) => !inTab.has(item.component_id));
      const layout = [...kept, ...action.layout.filter((item) => inTab.has(item.component_id))];
      return change(state, { ...present, layout: normalizeByTab({ ...present, layout }) });
    }
    case 'add': {
      if (present.components.some((component) => component.component_id === action.component.component_id)) {
        return state;
      }
      const tabId = action.tabId ?? null;
      const component = tabId === null ? action.component : { ...action.component, tab_id: tabId };
      const size = action.size ?? NEW_SIZE[component.type];
      const inTab = new Set(componentsInTab(present.components, present.tabs, tabId).map((c) => c.component_id));
      const placed = present.layout.filter((item) => inTab.has(item.component_id));
      const item = {
        component_id: component.component_id,
        ...firstFreeSlot(placed, size, action.fromRow ?? 0),
        ...size,
      };
      const next = { ...present, components: [...present.components, component], layout: [...present.layout, item] };
      return change(state, { ...next, layout: normalizeByTab(next) });
    }
    case 'tabs': {
      const next = applyTabOp(present, action.change);
      return change(state, { ...next, layout: normalizeByTab(next) });
    }
    case 'update': {
      if (!present.components.some((component) => component.component_id === action.componentId)) return state;
      const components = present.components.map((component) =>
        component.component_id === action.componentId ? action.component : component,
      );
      // A renamed component keeps its place.
      const layout = present.layout.map((item) =>
        item.component_id === action.componentId ? { ...item, component_id: action.component.component_id } : item,
      );
      return change(state, { ...present, components, layout });
    }
    case 'remove':
      return change(state, {
        ...present,
        components: present.components.filter((component) => component.component_id !== action.componentId),
        layout: present.layout.filter((item) => item.component_id !== action.componentId),
      });
    case 'title':
      return change(state, { ...present, title: action.title });
    case 'undo': {
      const previous = state.past.at(-1);
      if (previous === undefined) return state;
      return { ...state, past: state.past.slice(0, -1), present: previous, future: [present, ...state.future] };
    }
    case 'redo': {
      const [next, ...rest] = state.future;
      if (next === undefined) return state;
      return { ...state, past: [...state.past, present], present: next, future: rest };
    }
  }
}

/** Arrow keys move a component by one cell; with Shift they resize it (right/down grow it). */
/**
 * Where a new box of `size` goes: the first place, row by row from `fromRow` and left to right,
 * where it overlaps nothing (what the author sees first); below everything when none is free.
 */
export function firstFreeSlot(
  items: readonly LayoutItem[],
  size: { w: number; h: number },
  fromRow: number,
): { x: number; y: number } {
  const bottom = Math.max(0, ...items.map((item) => item.y + item.h));
  for (let y = Math.max(0, Math.min(fromRow, bottom)); y < bottom; y++) {
    for (let x = 0; x + size.w <= DASHBOARD_GRID_COLUMNS; x++) {
      const box = { component_id: '', x, y, ...size };
      if (!items.some((item) => overlaps(item, box))) return { x, y };
    }
  }
  return { x: 0, y: bottom };
}

/**
 * The collection a new component of `type` starts on: the one the dashboard's components of its
 * kind (MultiQC plots, or the others) read most, the first of those on a tie; else `fallback`.
 */
export function mostUsedCollection(
  components: readonly DashboardComponent[],
  type: DashboardComponent['type'],
  fallback: string,
): string {
  const counts = new Map<string, number>();
  for (const component of components) {
    if (!readsCollection(component) || (component.type === 'multiqc') !== (type === 'multiqc')) continue;
    counts.set(component.data_collection_id, (counts.get(component.data_collection_id) ?? 0) + 1);
  }
  let best = fallback;
  let most = 0;
  for (const [id, count] of counts) {
    if (count > most) [best, most] = [id, count];
  }
  return best;
}

export function keyboardMove(item: LayoutItem, key: string, resize: boolean): LayoutItem | null {
  const step: Record<string, [number, number]> = {
    ArrowLeft: [-1, 0],
    ArrowRight: [1, 0],
    ArrowUp: [0, -1],
    ArrowDown: [0, 1],
  };
  const delta = step[key];
  if (delta === undefined) return null;
  const [dx, dy] = delta;
  if (resize) {
    const w = Math.min(Math.max(1, item.w + dx), DASHBOARD_GRID_COLUMNS - item.x);
    return { ...item, w, h: Math.max(1, item.h + dy) };
  }
  return {
    ...item,
    x: Math.min(Math.max(0, item.x + dx), DASHBOARD_GRID_COLUMNS - item.w),
    y: Math.max(0, item.y + dy),
  };
}

/** Whether the draft differs from what the server has. */
export function isUnsaved(state: EditorState): boolean {
  return !sameDraft(state.present, state.saved);
}
