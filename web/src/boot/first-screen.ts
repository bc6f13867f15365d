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
