import { type DashboardComponent, type DashboardTab, type LayoutItem, type TabIcon, tabOf } from '@service/common';

/**
 * Edit mode's tab operations (docs/dashboards.md "Tabs"), pure functions of the draft. While tabs
 * exist the editor names every component's tab explicitly, so reordering the tabs never moves the
 * components that relied on "absent = the first tab".
 */
export interface TabbedDraft {
  tabs: DashboardTab[];
  components: DashboardComponent[];
  layout: LayoutItem[];
}

export type TabOp =
  /** A new last tab (`newTabId` names it). */
  | { op: 'add'; tabId: string; title: string }
  | { op: 'rename'; tabId: string; title: string }
  /** The tab's icon (one of TAB_ICONS), or none. */
  | { op: 'icon'; tabId: string; icon: TabIcon | null }
  | { op: 'move'; tabId: string; by: -1 | 1 }
  /** Its components go to `moveTo`, or are removed with it when null. The last tab's stay, untabbed. */
  | { op: 'delete'; tabId: string; moveTo: string | null }
  | { op: 'component'; componentId: string; tabId: string };

/** Every component with its tab named (none while the dashboard has no tabs). */
export function withExplicitTabs(components: readonly DashboardComponent[], tabs: readonly DashboardTab[]) {
  return components.map((component): DashboardComponent => {
    const { tab_id: _, ...rest } = component;
    if (tabs.length === 0) return rest as DashboardComponent;
    return { ...component, tab_id: tabOf(component, tabs) ?? undefined } as DashboardComponent;
  });
}

/** The first tab of a dashboard that had none: it holds what the dashboard had. */
const FIRST_TAB: DashboardTab = { tab_id: 'tab-1', title: 'Tab 1' };

/** The id a new tab gets: `tab-1`, `tab-2`, … not used yet (the first tab made alongside counts). */
export function newTabId(tabs: readonly DashboardTab[]): string {
  const used = new Set((tabs.length === 0 ? [FIRST_TAB] : tabs).map((tab) => tab.tab_id));
  let n = 1;
  while (used.has(`tab-${n}`)) n += 1;
  return `tab-${n}`;
}

/** The component's layout entry moved below everything already in `tabId`. */
function placedLast(draft: TabbedDraft, componentId: string, tabId: string | null): LayoutItem[] {
  const tabOfId = new Map(draft.components.map((component) => [component.component_id, tabOf(component, draft.tabs)]));
  const others = draft.layout.filter(
    (item) => item.component_id !== componentId && tabOfId.get(item.component_id) === tabId,
  );
  const bottom = Math.max(0, ...others.map((item) => item.y + item.h));
  return draft.layout.map((item) => (item.component_id === componentId ? { ...item, x: 0, y: bottom } : item));
}

export function applyTabOp<Draft extends TabbedDraft>(draft: Draft, change: TabOp): Draft {
  switch (change.op) {
    case 'add': {
      // The first tab added to a dashboard without tabs gets a sibling holding what it has.
      if (draft.tabs.some((tab) => tab.tab_id === change.tabId)) return draft;
      const tabs = draft.tabs.length === 0 ? [FIRST_TAB] : [...draft.tabs];
      tabs.push({ tab_id: change.tabId, title: change.title });
      return { ...draft, tabs, components: withExplicitTabs(draft.components, tabs) };
    }
    case 'rename':
      return {
        ...draft,
        tabs: draft.tabs.map((tab) => (tab.tab_id === change.tabId ? { ...tab, title: change.title } : tab)),
      };
    case 'icon':
      return {
        ...draft,
        tabs: draft.tabs.map((tab) => {
          if (tab.tab_id !== change.tabId) return tab;
          const { icon: _, ...rest } = tab;
          return change.icon === null ? rest : { ...rest, icon: change.icon };
        }),
      };
    case 'move': {
      const from = draft.tabs.findIndex((tab) => tab.tab_id === change.tabId);
      const to = from + change.by;
      if (from < 0 || to < 0 || to >= draft.tabs.length) return draft;
      const tabs = [...draft.tabs];
      [tabs[from], tabs[to]] = [tabs[to] as DashboardTab, tabs[from] as DashboardTab];
      return { ...draft, tabs };
    }
    case 'delete':
      return deleteTab(draft, change.tabId, change.moveTo);
    case 'component':
      return moveComponent(draft, change.componentId, change.tabId);
  }
}

function deleteTab<Draft extends TabbedDraft>(draft: Draft, tabId: string, moveTo: string | null): Draft {
  const tabs = draft.tabs.filter((tab) => tab.tab_id !== tabId);
  if (tabs.length === draft.tabs.length) return draft;
  if (tabs.length === 0) return { ...draft, tabs, components: withExplicitTabs(draft.components, tabs) };
  const leaving = draft.components.filter((component) => tabOf(component, draft.tabs) === tabId);
  let next: Draft = { ...draft, tabs };
  if (moveTo === null || !tabs.some((tab) => tab.tab_id === moveTo)) {
    const gone = new Set(leaving.map((component) => component.component_id));
    return {
      ...next,
      components: draft.components.filter((component) => !gone.has(component.component_id)),
      layout: draft.layout.filter((item) => !gone.has(item.component_id)),
    };
  }
  for (const component of leaving) next = moveComponent({ ...next, tabs: draft.tabs }, component.component_id, moveTo);
  return { ...next, tabs };
}

function moveComponent<Draft extends TabbedDraft>(draft: Draft, componentId: string, tabId: string): Draft {
  if (!draft.tabs.some((tab) => tab.tab_id === tabId)) return draft;
  const layout = placedLast(draft, componentId, tabId);
  const components = draft.components.map((component) =>
    component.component_id === componentId ? { ...component, tab_id: tabId } : component,
  );
  return { ...draft, components, layout };
}
