import { Pagination } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { pageOf } from './page-param.js';

/**
 * The 1-based page number kept in the address bar (`?page=`, or `param` when a screen has two
 * paged lists), so a reload or a shared link keeps it.
 */
export function usePageParam(param = 'page'): number {
  const [params] = useSearchParams();
  return pageOf(params, param);
}

/** Pagination that writes `?page=` (or `param`), keeping the other query parameters; hidden for a single page. */
export function UrlPagination({ pages, label, param = 'page' }: { pages: number; label: string; param?: string }) {
  const [params, setParams] = useSearchParams();
  if (pages <= 1) return null;
  return (
    <Pagination
      total={pages}
      value={pageOf(params, param)}
      onChange={(value) => {
        const next = new URLSearchParams(params);
        next.set(param, String(value));
        setParams(next);
      }}
      aria-label={label}
    />
  );
}
