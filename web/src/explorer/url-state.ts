import type { Filter, SortKey } from '@service/common';
import { useSearchParams } from 'react-router';
import { type ExplorerView, readExplorerAddress } from './address.js';
import { formatFilters, parseFilters } from './row-filter.js';
import { formatSort, parseSort } from './sort.js';

export type { ExplorerView };

export interface ExplorerState {
  view: ExplorerView;
  sort: SortKey[];
  /** The column whose distinct values are shown, or null. */
  valuesOf: string | null;
  /** The table version being read, or null for the latest. */
  version: number | null;
  /** The row filter: every row shown meets each of these. */
  filters: Filter[];
}

/** The explorer's state in the address bar (explorer/address.ts), its sort parsed. */
export function readExplorerState(params: URLSearchParams): ExplorerState {
  const { sortText, filtersText, ...address } = readExplorerAddress(params);
  return { ...address, sort: parseSort(sortText), filters: parseFilters(filtersText) };
}

export interface ExplorerActions {
  setView(view: ExplorerView): void;
  /** A new sort starts again at the first page. */
  setSort(keys: readonly SortKey[]): void;
  showValues(column: string | null): void;
  /** A new row filter starts again at the first page. */
  setFilters(filters: readonly Filter[]): void;
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
      setFilters: (filters) => update({ filters: formatFilters(filters), page: null }),
      browseVersion: (version) =>
        update({ version: version === null ? null : String(version), view: null, page: null }),
    },
  ];
}
