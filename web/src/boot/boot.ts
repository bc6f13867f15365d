/**
 * The boot script, inlined into `index.html` by the build (web/build/boot-script.ts) and run while
 * the page is parsed, before the app's code has even arrived. It starts what the first screen
 * needs: the app's GETs for this address (with the stored session's token), a dashboard's first
 * data request once its definition is in, and the code of the page it will show. The app adopts
 * the answers (api/early-answers.ts) instead of asking again, so the network and the server work
 * while the browser downloads and evaluates the app (docs/performance.md, `web`). Kept tiny: it
 * imports only modules without dependencies.
 */
import { NDJSON } from '../api/json-lines.js';
import { API_BASE, apiHeaders, apiUrl, dashboardDataPath, dashboardGet, SESSION_STORAGE_KEY } from '../api/wire.js';
import { storedSectionChoices } from '../dashboard/section-choices.js';
import {
  dashboardIdOf,
  firstDashboardDataBody,
  firstScreenGets,
  firstScreenModules,
  type PreloadableModule,
} from './first-screen.js';
import type { EarlyGet, EarlyPost } from './handoff.js';

/** Each preloadable module's chunk and the chunks it imports (URLs), filled in by the build. */
declare const __BOOT_MODULE_CHUNKS__: Record<PreloadableModule, string[]>;

/**
 * The stored session's access token. Only the token is read here; the app checks the whole
 * session (TokenStore), and if it refuses it, it sends no token and adopts none of these answers.
 */
function storedAccessToken(): string | null {
  try {
    // Where TokenStore keeps it (localStorage), or where older versions did, until the app moves it.
    const raw = window.localStorage.getItem(SESSION_STORAGE_KEY) ?? window.sessionStorage.getItem(SESSION_STORAGE_KEY);
    const session: unknown = raw === null ? null : JSON.parse(raw);
    if (typeof session !== 'object' || session === null || !('access_token' in session)) return null;
    return typeof session.access_token === 'string' ? session.access_token : null;
  } catch {
    return null;
  }
}

function preloadModule(href: string): void {
  const link = document.createElement('link');
  link.rel = 'modulepreload';
  link.href = href;
  document.head.appendChild(link);
}

function sendGets(token: string | null): EarlyGet[] {
  return firstScreenGets(window.location, token !== null).map((get): EarlyGet => {
    const sent = get.auth === false ? null : token;
    const url = apiUrl(API_BASE, get.path, get.query);
    const response = fetch(url, { method: 'GET', headers: apiHeaders(sent, false) });
    // A failure is the adopter's to see; never an unhandled rejection before the app has arrived.
    response.catch(() => {});
    return { url, token: sent, response };
  });
}

/**
 * A dashboard's first data request, sent as soon as the GET of its definition is answered (the
 * body names the open tab): the server computes the charts while the app's code arrives.
 */
function sendDashboardData(gets: readonly EarlyGet[], token: string | null): EarlyPost[] {
  const dashboardId = dashboardIdOf(window.location.pathname);
  const definitionUrl = dashboardId === null ? null : apiUrl(API_BASE, dashboardGet(dashboardId).path);
  const definition = gets.find((get) => get.url === definitionUrl);
  if (dashboardId === null || token === null || definition === undefined) return [];
  const url = apiUrl(API_BASE, dashboardDataPath(dashboardId));
  const sent = definition.response
    .then((response) => (response.ok ? response.clone().json() : null))
    .then((answer: unknown) => {
      const body = answer === null ? null : firstDashboardDataBody(window.location, answer, storedSectionChoices);
      if (body === null) return null;
      // The headers the app's stream sends (ApiClient.stream).
      const headers = { ...apiHeaders(token, true), accept: `${NDJSON}, application/problem+json` };
      const response = fetch(url, { method: 'POST', headers, body });
      response.catch(() => {});
      return { body, response };
    })
    .catch(() => null);
  return [{ url, token, sent }];
}

function boot(): void {
  const token = storedAccessToken();
  const gets = sendGets(token);
  window.__serviceEarly = { gets, posts: sendDashboardData(gets, token) };
  const chunks = new Set(firstScreenModules(window.location).flatMap((module) => __BOOT_MODULE_CHUNKS__[module]));
  for (const href of chunks) preloadModule(href);
}

boot();
