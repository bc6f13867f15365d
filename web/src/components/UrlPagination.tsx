import { Pagination } from '@mantine/core';
import { useSearchParams } from 'react-router';

function pageOf(params: URLSearchParams): number {
  return Math.max(1, Number(params.get('page') ?? '1') || 1);
}

/** The 1-based page number kept in the address bar (`?page=`), so a reload or a shared link keeps it. */
export function usePageParam(): number {
  const [params] = useSearchParams();
  return pageOf(params);
}

/** Pagination that writes `?page=`, keeping the other query parameters; hidden for a single page. */
export function UrlPagination({ pages, label }: { pages: number; label: string }) {
  const [params, setParams] = useSearchParams();
  if (pages <= 1) return null;
  return (
    <Pagination
      total={pages}
      value={pageOf(params)}
      onChange={(value) => {
        const next = new URLSearchParams(params);
        next.set('page', String(value));
        setParams(next);
      }}
      aria-label={label}
    />
  );
}
