/**
 * Everything the explorer shows is in the address bar, next to the project page's `dc` (the
 * collection) and `page` (the preview page), so a reload or a shared link opens the same view:
 * `view` (the tab), `sort` (as the API takes it), `values` (the column whose distinct values are
 * open), `version` (an earlier version of the table), `vpage` (the page of the versions list) and
 * `filters` (the row filter, as the API's `filters` JSON).
 *
 * This module reads those parameters as text, without React or the schemas, so that the boot
 * script can start the preview a link opens with the same parameters the explorer will use.
 */

export const EXPLORER_VIEWS = ['preview', 'columns', 'versions'] as const;
export type ExplorerView = (typeof EXPLORER_VIEWS)[number];

export interface ExplorerAddress {
  view: ExplorerView;
  /** The `sort` parameter as written (`col:asc,col2:desc`), or null. */
  sortText: string | null;
  /** The column whose distinct values are shown, or null. */
  valuesOf: string | null;
  /** The table version being read, or null for the latest. */
  version: number | null;
  /** The `filters` parameter as written (the API's JSON list), or null. */
  filtersText: string | null;
}

function viewOf(text: string | null): ExplorerView {
  return EXPLORER_VIEWS.find((view) => view === text) ?? 'preview';
}

function versionOf(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) return null;
  const version = Number(text);
  return Number.isSafeInteger(version) ? version : null;
}

export function readExplorerAddress(params: URLSearchParams): ExplorerAddress {
  return {
    view: viewOf(params.get('view')),
    sortText: params.get('sort') || null,
    valuesOf: params.get('values') || null,
    version: versionOf(params.get('version')),
    filtersText: params.get('filters') || null,
  };
}
