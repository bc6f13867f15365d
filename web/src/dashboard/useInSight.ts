import { type RefObject, useEffect, useState } from 'react';

/** How far beyond the viewport an element counts as in sight: it is drawn just before it scrolls in. */
const AHEAD = '200px 0px';

/**
 * Whether the element is within (or near) the viewport, followed as the page scrolls. A dashboard
 * redraws the charts in sight after a filter change and the others once scrolled to, as Grafana
 * does with its panels (docs/dashboards.md "Charts out of sight"). Without IntersectionObserver
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
