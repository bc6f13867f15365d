import { describe, expect, it } from 'vitest';
import { API_BASE, apiUrl } from '../src/api/wire.js';
import { firstDashboardDataBody, firstScreenGets, firstScreenModules } from '../src/boot/first-screen.js';

const urls = (pathname: string, search = '', signedIn = true) =>
  firstScreenGets({ pathname, search }, signedIn).map(
    (get) => `${get.auth === false ? 'anonymous ' : ''}${apiUrl(API_BASE, get.path, get.query)}`,
  );

describe("the boot script's plan of the first screen", () => {
  it("asks a deep link to a collection for the app's first GETs, the preview's page (as the address gives it) first", () => {
    expect(urls('/projects/p1', '?dc=c1&page=3')).toEqual([
      '/service/api/v1/datacollections/c1/preview?limit=25&skip=50',
      'anonymous /service/api/v1/utils/capabilities',
      '/service/api/v1/auth/me',
      '/service/api/v1/projects/p1',
      '/service/api/v1/projects/ingestion/trigger-status/p1',
      '/service/api/v1/projects/ingestion-runs/p1?limit=20',
      '/service/api/v1/dashboards?project_id=p1&limit=200',
      '/service/api/v1/projects/p1/workflows?limit=200',
      '/service/api/v1/datacollections/c1',
    ]);
    expect(firstScreenModules({ pathname: '/projects/p1', search: '?dc=c1' })).toEqual(['project', 'explorer']);
  });

  it('keeps the sort and version of the link, and starts no preview for another tab', () => {
    expect(urls('/projects/p1', '?dc=c1&sort=b%3Adesc&version=2').at(0)).toBe(
      '/service/api/v1/datacollections/c1/preview?limit=25&skip=0&sort=b%3Adesc&version=2',
    );
    expect(urls('/projects/p1', '?dc=c1&view=columns').at(-1)).toBe('/service/api/v1/datacollections/c1');
  });

  it('asks only for the capabilities without a stored session, and for the user elsewhere', () => {
    expect(urls('/projects/p1', '?dc=c1', false)).toEqual(['anonymous /service/api/v1/utils/capabilities']);
    expect(urls('/jobs')).toEqual(['anonymous /service/api/v1/utils/capabilities', '/service/api/v1/auth/me']);
    expect(firstScreenModules({ pathname: '/projects/p1', search: '' })).toEqual(['project']);
    expect(firstScreenModules({ pathname: '/', search: '' })).toEqual(['home']);
    expect(firstScreenModules({ pathname: '/home', search: '' })).toEqual(['home']);
    expect(firstScreenModules({ pathname: '/projects', search: '' })).toEqual(['projects']);
    expect(firstScreenModules({ pathname: '/jobs', search: '' })).toEqual([]);
  });

  it("asks a dashboard's link for the dashboard, and preloads its page", () => {
    expect(urls('/dashboards/d1', '?tab=t2')).toEqual([
      'anonymous /service/api/v1/utils/capabilities',
      '/service/api/v1/auth/me',
      '/service/api/v1/dashboards/d1',
    ]);
    expect(firstScreenModules({ pathname: '/dashboards/d1', search: '?edit=1' })).toEqual(['dashboard']);
    expect(urls('/dashboards/d1', '', false)).toEqual(['anonymous /service/api/v1/utils/capabilities']);
    expect(urls('/dashboards/d1/other')).toHaveLength(2);
    expect(firstScreenModules({ pathname: '/dashboards', search: '' })).toEqual([]);
  });

  it('decodes the project id as the router does, and leaves deeper paths alone', () => {
    expect(urls('/projects/a%20b').at(2)).toBe('/service/api/v1/projects/a b');
    expect(urls('/projects/p1/other')).toHaveLength(2);
    expect(urls('/projects/%E0%A4%A')).toHaveLength(2);
  });

  describe("a dashboard's first data request", () => {
    const definition = {
      dashboard_id: 'd1',
      tabs: [{ tab_id: 'first' }, { tab_id: 'second' }],
      components: [
        { component_id: 'intro', type: 'text' },
        { component_id: 'rows', type: 'card', tab_id: 'second' },
        { component_id: 'part', type: 'section', tab_id: 'second' },
      ],
    };
    const none = () => ({});
    const body = (search: string, shown: unknown = definition, choices = none) =>
      firstDashboardDataBody({ pathname: '/dashboards/d1', search }, shown, choices);

    it('asks for the open tab unfiltered, with the body the app writes', () => {
      expect(body('')).toBe('{"filters":[],"tab_id":"first"}');
      expect(body('?tab=second')).toBe('{"filters":[],"tab_id":"second"}');
      // A tab the dashboard lacks opens the first, as the app does.
      expect(body('?tab=gone')).toBe('{"filters":[],"tab_id":"first"}');
      expect(body('', { ...definition, tabs: [] })).toBe('{"filters":[]}');
    });

    it('plans nothing for an address that says more, a folded section or another shape', () => {
      for (const search of ['?filters=[]', '?as_of=2026-01-01T00:00:00Z', '?contigs={}', '?edit=1', '?revision=2']) {
        expect(body(search), search).toBeNull();
      }
      expect(body('', definition, () => ({ part: true }))).toBeNull();
      expect(body('', definition, () => ({ part: false }))).toBe('{"filters":[],"tab_id":"first"}');
      const collapsed = { ...definition, components: [{ component_id: 'part', type: 'section', collapsed: true }] };
      expect(body('', collapsed)).toBeNull();
      expect(body('', collapsed, () => ({ part: false }))).toBe('{"filters":[],"tab_id":"first"}');
      for (const shown of [null, 'x', { tabs: [] }, { tabs: [{}], components: [] }, { tabs: [], components: [1] }]) {
        expect(body('', shown)).toBeNull();
      }
      expect(firstDashboardDataBody({ pathname: '/projects/p1', search: '' }, definition, none)).toBeNull();
    });
  });
});
