import {
  type ApiGet,
  capabilitiesGet,
  currentUserGet,
  dashboardGet,
  dataCollectionGet,
  ingestionRunsGet,
  ingestionStatusGet,
  previewGet,
  projectDashboardsGet,
  projectGet,
  projectWorkflowsGet,
} from '../api/wire.js';
import { pageOf } from '../components/page-param.js';
import { openTabId } from '../dashboard/open-tab.js';
import { isFolded, type SectionChoices } from '../dashboard/section-choices.js';
import { readExplorerAddress } from '../explorer/address.js';

/**
 * The lazily loaded modules (paths under `web/src`) whose chunks the boot script may preload; the
 * build maps each to its chunk and the chunks it imports (web/build/boot-script.ts).
 */
export const PRELOADABLE_MODULES = {
  home: 'pages/HomePage.tsx',
  projects: 'pages/ProjectsPage.tsx',
  project: 'pages/ProjectDetailPage.tsx',
  explorer: 'explorer/DataExplorer.tsx',
  dashboard: 'pages/DashboardPage.tsx',
} as const;
export type PreloadableModule = keyof typeof PRELOADABLE_MODULES;

/** `/projects/{id}` (the id decoded, as React Router's `useParams` gives it), or null. */
export function projectIdOf(pathname: string): string | null {
  return idIn(/^\/projects\/([^/]+)\/?$/, pathname);
}

/** `/dashboards/{id}`, decoded the same way, or null. */
export function dashboardIdOf(pathname: string): string | null {
  return idIn(/^\/dashboards\/([^/]+)\/?$/, pathname);
}

function idIn(route: RegExp, pathname: string): string | null {
  const match = route.exec(pathname);
  if (match?.[1] === undefined) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** Where the app is opened: `window.location` or a test's stand-in. */
export interface Address {
  pathname: string;
  search: string;
}

/** The lazily loaded code the first screen at `address` shows. */
export function firstScreenModules(address: Address): PreloadableModule[] {
  // `/` goes to the home page (App.tsx).
  if (address.pathname === '/' || /^\/home\/?$/.test(address.pathname)) return ['home'];
  if (/^\/projects\/?$/.test(address.pathname)) return ['projects'];
  if (dashboardIdOf(address.pathname) !== null) return ['dashboard'];
  if (projectIdOf(address.pathname) === null) return [];
  return new URLSearchParams(address.search).has('dc') ? ['project', 'explorer'] : ['project'];
}

/**
 * The GETs the app will make first at `address`, as it makes them (`App.tsx`, `AuthProvider`,
 * `ProjectDetailPage` and the explorer's preview, `DashboardPage`), so that the boot script can send them while the
 * app's code is still on its way. Signed out, only the capabilities are asked for: what shows then
 * depends on the mode they give. A guess that turns out wrong costs an unused answer, never a wrong
 * page: the app adopts an answer only for the very request it makes.
 */
export function firstScreenGets(address: Address, signedIn: boolean): ApiGet[] {
  const gets = [capabilitiesGet()];
  if (!signedIn) return gets;
  gets.push(currentUserGet());
  const dashboardId = dashboardIdOf(address.pathname);
  if (dashboardId !== null) return [...gets, dashboardGet(dashboardId)];
  const projectId = projectIdOf(address.pathname);
  if (projectId === null) return gets;
  gets.push(
    projectGet(projectId),
    ingestionStatusGet(projectId),
    ingestionRunsGet(projectId),
    projectDashboardsGet(projectId),
    projectWorkflowsGet(projectId),
  );
  const params = new URLSearchParams(address.search);
  const collectionId = params.get('dc');
  if (collectionId === null) return gets;
  gets.push(dataCollectionGet(collectionId));
  const explorer = readExplorerAddress(params);
  if (explorer.view === 'preview') {
    // First: it takes the server longest, and sent last it waited in the browser for one of the
    // six connections (HTTP/1.1) that the scripts and the other GETs held.
    gets.unshift(
      previewGet(collectionId, {
        page: pageOf(params),
        sort: explorer.sortText,
        version: explorer.version,
        filters: explorer.filtersText,
      }),
    );
  }
  return gets;
}

/**
 * The body of the data request (`dashboardDataPath`) that a dashboard opened at `address` makes
 * first (`useDashboardData` in DashboardView), once its definition is known, so that the boot
 * script can send it while the app's code is still on its way: the open tab's data, no filters (a
 * tab of text alone, which the app asks nothing for, costs the server an empty answer). Only for
 * the plain view: an address that says more than the tab (filters, a version, a contig, edit mode,
 * a past revision), a folded section (the app then asks for some components only) or a definition
 * of another shape plans nothing, and the app asks itself. A plan that differs from the app's
 * request is never adopted.
 */
export function firstDashboardDataBody(
  address: Address,
  definition: unknown,
  choices: (dashboardId: string) => SectionChoices,
): string | null {
  const dashboardId = dashboardIdOf(address.pathname);
  const params = new URLSearchParams(address.search);
  if (dashboardId === null || [...params.keys()].some((key) => key !== 'tab')) return null;
  const shape = dashboardShape(definition);
  if (shape === null) return null;
  const folded = choices(dashboardId);
  if (shape.components.some((component) => component.type === 'section' && isFolded(folded, component))) return null;
  const tabId = openTabId(shape.tabs, params.get('tab'));
  // The key order of the app's body (useDashboardData): `filters`, then `tab_id`.
  const body = tabId === null ? { filters: [] } : { filters: [], tab_id: tabId };
  return JSON.stringify(body);
}

interface DefinitionShape {
  tabs: { tab_id: string }[];
  components: { component_id: string; type: string; collapsed?: boolean }[];
}

/** What the plan reads of a dashboard's definition, or null when it is not shaped so. */
function dashboardShape(definition: unknown): DefinitionShape | null {
  if (typeof definition !== 'object' || definition === null) return null;
  const { tabs, components } = definition as Record<string, unknown>;
  if (!Array.isArray(tabs) || !Array.isArray(components)) return null;
  const isTab = (tab: unknown) =>
    typeof tab === 'object' && tab !== null && typeof (tab as { tab_id?: unknown }).tab_id === 'string';
  const isComponent = (component: unknown) => {
    if (typeof component !== 'object' || component === null) return false;
    const { component_id, type, collapsed } = component as Record<string, unknown>;
    return (
      typeof component_id === 'string' &&
      typeof type === 'string' &&
      (collapsed === undefined || typeof collapsed === 'boolean')
    );
  };
  if (!tabs.every(isTab) || !components.every(isComponent)) return null;
  return { tabs, components } as DefinitionShape;
}
