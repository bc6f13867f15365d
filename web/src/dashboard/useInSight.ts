import { type RefObject, useEffect, useRef, useState } from 'react';

/** How far beyond the viewport an element counts as in sight: it is drawn just before it scrolls in. */
const AHEAD = '200px 0px';

/**
 * Whether the element is within (or near) the viewport, followed as the page scrolls. A dashboard
 * redraws the charts in sight after a filter change and the others once scrolled to, as Grafana
 * does with its panels (docs/dashboards.md "In the web app"). Without IntersectionObserver
 * everything counts as in sight.
 */
export function useInSight(element: RefObject<HTMLElement | null>): boolean {
  const [inSight, setInSight] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const target = element.current;
    if (target === null || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => setInSight(entries.some((entry) => entry.isIntersecting)), {
      rootMargin: AHEAD,
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return inSight;
}

/**
 * The ids of the cells (`data-component-id`) within `container` that are in (or near) sight,
 * followed as the page scrolls and as cells come and go: a dashboard asks for the data of those
 * alone, and for the others once scrolled to. Null without IntersectionObserver: all count.
 */
export function useCellsInSight(container: RefObject<HTMLElement | null>): ReadonlySet<string> | null {
  const [inSight, setInSight] = useState<ReadonlySet<string> | null>(() =>
    typeof IntersectionObserver === 'undefined' ? null : new Set(),
  );
  const observer = useRef<IntersectionObserver | null>(null);
  useEffect(() => {
    if (typeof IntersectionObserver === 'undefined') return;
    const watcher = new IntersectionObserver((entries) => setInSight((before) => seen(before, entries)), {
      rootMargin: AHEAD,
    });
    observer.current = watcher;
    return () => {
      watcher.disconnect();
      observer.current = null;
    };
  }, []);
  // After each render, the cells there are now (watching a cell again does nothing).
  useEffect(() => {
    const target = container.current;
    const watcher = observer.current;
    if (target === null || watcher === null) return;
    for (const cell of target.querySelectorAll('[data-component-id]')) watcher.observe(cell);
  });
  return inSight;
}

/** The cells in sight after `entries`; the same set when none came or went. */
function seen(before: ReadonlySet<string> | null, entries: IntersectionObserverEntry[]): ReadonlySet<string> {
  const next = new Set(before);
  for (const entry of entries) {
    const id = entry.target instanceof HTMLElement ? entry.target.dataset.componentId : undefined;
    if (id === undefined) continue;
    if (entry.isIntersecting) next.add(id);
    else next.delete(id);
  }
  const same = before !== null && before.size === next.size && [...next].every((id) => before.has(id));
  return same ? before : next;
}
