/**
 * What an API call puts on the wire (its URL and headers), and the GETs of the first screens as
 * data. Shared by the app's `ApiClient` and the boot script (`web/src/boot/`), which starts those
 * GETs before the app's code has arrived: both must build byte-identical requests for the app to
 * adopt the boot's answers. No imports: the boot script is inlined into `index.html`.
 */

/** Where the API lives, relative to the page's origin. */
export const API_BASE = '/service/api/v1';

/** Where the session (tokens and user) is kept between reloads. */
export const SESSION_STORAGE_KEY = 'service.session';

export type QueryParams = Record<string, string | number | boolean | undefined>;

/** A GET of the API: the path under `API_BASE`, its query, and whether it carries the bearer token. */
export interface ApiGet {
  path: string;
  query?: QueryParams;
  /** Send the bearer token (default true). */
  auth?: boolean;
}

/** The URL of `path` with `query` (parameters left undefined are omitted). */
export function apiUrl(baseUrl: string, path: string, query?: QueryParams): string {
  let url = `${baseUrl}${path}`;
  if (query) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) search.set(key, String(value));
    }
    const text = search.toString();
    if (text !== '') url += `${url.includes('?') ? '&' : '?'}${text}`;
  }
  return url;
}

/** The headers of every API call: JSON (or a problem) back, the body's type, the bearer token. */
export function apiHeaders(token: string | null, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (hasBody) headers['content-type'] = 'application/json';
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return headers;
}

// The first screens' GETs. The app's queries and the boot script both build them here.

export const capabilitiesGet = (): ApiGet => ({ path: '/utils/capabilities', auth: false });

/** In single-user mode the server acts as its admin and ignores tokens: none is sent. */
export const currentUserGet = (singleUser = false): ApiGet => ({ path: '/auth/me', auth: !singleUser });

export const projectGet = (projectId: string): ApiGet => ({ path: `/projects/${projectId}` });

export const dashboardGet = (dashboardId: string): ApiGet => ({ path: `/dashboards/${dashboardId}` });

/** Where a dashboard's data is asked for (`POST`, a read: the body says which view). */
export const dashboardDataPath = (dashboardId: string) => `/dashboards/${dashboardId}/data`;

export const projectWorkflowsGet = (projectId: string): ApiGet => ({
  path: `/projects/${projectId}/workflows`,
  query: { limit: 200 },
});

export const projectDashboardsGet = (projectId: string): ApiGet => ({
  path: '/dashboards',
  query: { project_id: projectId, limit: 200 },
});

export const ingestionStatusGet = (projectId: string): ApiGet => ({
  path: `/projects/ingestion/trigger-status/${projectId}`,
});

export const ingestionRunsGet = (projectId: string): ApiGet => ({
  path: `/projects/ingestion-runs/${projectId}`,
  query: { limit: 20 },
});

export const dataCollectionGet = (collectionId: string): ApiGet => ({ path: `/datacollections/${collectionId}` });

export const PREVIEW_PAGE_SIZE = 25;

/** One page of a collection's rows; `sort` as the API takes it (`col:asc,col2:desc`). */
export const previewGet = (
  collectionId: string,
  {
    page,
    sort,
    version,
    filters = null,
  }: { page: number; sort: string | null; version: number | null; filters?: string | null },
): ApiGet => ({
  path: `/datacollections/${collectionId}/preview`,
  query: {
    limit: PREVIEW_PAGE_SIZE,
    skip: (page - 1) * PREVIEW_PAGE_SIZE,
    sort: sort ?? undefined,
    version: version ?? undefined,
    filters: filters ?? undefined,
  },
});
