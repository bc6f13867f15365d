import type { SortKey } from '@service/common';
import { useSearchParams } from 'react-router';
import { formatSort, parseSort } from './sort.js';

/**
 * Everything the explorer shows is in the address bar, next to the project page's `dc` (the
 * collection) and `page` (the preview page), so a reload or a shared link opens the same view:
 * `view` (the tab), `sort` (as the API takes it), `values` (the column whose distinct values are
 * open), `version` (an earlier version of the table) and `vpage` (the page of the versions list).
 */

export const EXPLORER_VIEWS = ['preview', 'columns', 'versions'] as const;
export type ExplorerView = (typeof EXPLORER_VIEWS)[number];

export interface ExplorerState {
  view: ExplorerView;
  sort: SortKey[];
  /** The column whose distinct values are shown, or null. */
  valuesOf: string | null;
  /** The table version being read, or null for the latest. */
  version: number | null;
}

function viewOf(text: string | null): ExplorerView {
  return EXPLORER_VIEWS.find((view) => view === text) ?? 'preview';
}

function versionOf(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) return null;
  const version = Number(text);
  return Number.isSafeInteger(version) ? version : null;
}

export function readExplorerState(params: URLSearchParams): ExplorerState {
  return {
    view: viewOf(params.get('view')),
    sort: parseSort(params.get('sort')),
    valuesOf: params.get('values') || null,
    version: versionOf(params.get('version')),
  };
}

export interface ExplorerActions {
  setView(view: ExplorerView): void;
  /** A new sort starts again at the first page. */
  setSort(keys: readonly SortKey[]): void;
  showValues(column: string | null): void;
  /** Reads another version (null: the latest) in the preview, from its first page. */
  browseVersion(version: number | null): void;
}

/** The explorer's state from the address bar, and the changes that write it back (each one a history entry). */
export function useExplorerState(): [ExplorerState, ExplorerActions] {
  const [params, setParams] = useSearchParams();
  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) next.delete(name);
      else next.set(name, value);
    }
    setParams(next);
  };
  return [
    readExplorerState(params),
    {
      setView: (view) => update({ view: view === 'preview' ? null : view }),
      setSort: (keys) => update({ sort: formatSort(keys), page: null }),
      showValues: (column) => update({ values: column }),
      browseVersion: (version) =>
        update({ version: version === null ? null : String(version), view: null, page: null }),
    },
  ];
}
