import { z } from 'zod';
import { tabIdSchema } from './dashboard-components.js';

/**
 * Tabs of a dashboard (docs/dashboards.md "Tabs"): ordered; each component lives in one (its
 * `tab_id`, absent = the first tab). A dashboard without tabs has one implicit tab. Filters are
 * dashboard-wide; `POST /dashboards/{id}/data {tab_id}` computes one tab's components.
 */

/** Tabs a dashboard may have. */
export const MAX_DASHBOARD_TABS = 20;

/**
 * The icons a tab may have: names of Tabler icons (`@tabler/icons-react`), which the web app draws
 * (web/src/dashboard/tab-icons.tsx). A fixed list, so a dashboard file names only icons that exist.
 */
export const TAB_ICONS = [
  'home',
  'layout-dashboard',
  'report-analytics',
  'chart-bar',
  'chart-line',
  'chart-pie',
  'chart-dots',
  'chart-area',
  'table',
  'list-details',
  'checklist',
  'filter',
  'photo',
  'map',
  'world',
  'dna',
  'dna-2',
  'microscope',
  'flask',
  'virus',
  'leaf',
  'binary-tree',
  'hierarchy',
  'users',
  'calendar',
  'clock',
  'database',
  'file-text',
  'info-circle',
  'alert-triangle',
  'settings',
  'star',
] as const;
export type TabIcon = (typeof TAB_ICONS)[number];

/** Whether `name` is one of TAB_ICONS. */
export function isTabIcon(name: unknown): name is TabIcon {
  return typeof name === 'string' && (TAB_ICONS as readonly string[]).includes(name);
}

export const dashboardTabSchema = z
  .strictObject({
    tab_id: tabIdSchema,
    title: z.string().trim().min(1).max(100),
    /** An icon drawn before the title, one of TAB_ICONS (docs/dashboards.md "Tabs"). */
    icon: z.enum(TAB_ICONS).optional(),
    /** An accent colour, `#rrggbb`. */
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb')
      .optional(),
  })
  .meta({ id: 'DashboardTab' });
export type DashboardTab = z.infer<typeof dashboardTabSchema>;

export const dashboardTabsSchema = z.array(dashboardTabSchema).max(MAX_DASHBOARD_TABS);

/**
 * Tabs as a dashboard stored them (parsed JSON), each icon kept only when still one of TAB_ICONS:
 * dashboards saved when any name was accepted show no icon for an unknown one, and still read.
 */
export function storedTabs(parsed: unknown): DashboardTab[] {
  if (!Array.isArray(parsed)) return [];
  return (parsed as DashboardTab[]).map((tab) => {
    if (tab.icon === undefined || isTabIcon(tab.icon)) return tab;
    const { icon: _unknown, ...rest } = tab;
    return rest;
  });
}

/** The id of the tab a component lives in: its own, else the first tab's (null: no tabs at all). */
export function tabOf(component: { tab_id?: string | undefined }, tabs: readonly DashboardTab[]): string | null {
  return component.tab_id ?? tabs[0]?.tab_id ?? null;
}

/** Tab ids are unique, and every component's `tab_id` names one of the tabs. */
export function checkTabs(
  body: { tabs: readonly DashboardTab[]; components: readonly { tab_id?: string | undefined }[] },
  context: z.RefinementCtx,
) {
  const ids = new Set<string>();
  body.tabs.forEach((tab, index) => {
    if (ids.has(tab.tab_id)) {
      context.addIssue({ code: 'custom', path: ['tabs', index, 'tab_id'], message: 'another tab has this id' });
    }
    ids.add(tab.tab_id);
  });
  body.components.forEach((component, index) => {
    if (component.tab_id !== undefined && !ids.has(component.tab_id)) {
      context.addIssue({
        code: 'custom',
        path: ['components', index, 'tab_id'],
        message:
          body.tabs.length === 0
            ? 'the dashboard has no tabs: add the tab to `tabs` or leave tab_id out'
            : `no tab has this id (tabs: ${[...ids].join(', ')})`,
      });
    }
  });
}

/** The components that live in `tabId` (all of them when the dashboard has no tabs). */
export function componentsInTab<Component extends { tab_id?: string | undefined }>(
  components: readonly Component[],
  tabs: readonly DashboardTab[],
  tabId: string | null,
): Component[] {
  if (tabs.length === 0 || tabId === null) return [...components];
  return components.filter((component) => tabOf(component, tabs) === tabId);
}
