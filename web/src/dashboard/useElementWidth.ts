import { type RefObject, useLayoutEffect, useState } from 'react';

/**
 * The width (px) of an element, measured before the first paint and followed as it changes:
 * undefined until then, and kept while the element is hidden. A chart lays its legend out by it
 * (common/'s `fitLegend`).
 */
export function useElementWidth(element: RefObject<HTMLElement | null>): number | undefined {
  const [width, setWidth] = useState<number>();
  useLayoutEffect(() => {
    const target = element.current;
    if (target === null) return;
    setWidth(target.clientWidth);
    // A hidden element (another tab's) measures 0: it keeps the width it is laid out for.
    const observer = new ResizeObserver(() => {
      if (target.clientWidth > 0) setWidth(target.clientWidth);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}
