import { startTransition, useEffect, useState } from 'react';

/**
 * False in a component's first render; true in a second one, made as a transition once the first
 * is committed. For the parts of a page below what it is opened for: the project page draws its
 * dashboards, ingestion and sharing cards this way, after the workflows and the rows, whose render
 * then takes about a tenth less script time (135 → 120 ms; docs/performance.md, `web`).
 */
export function useAfterFirstRender(): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    startTransition(() => setReady(true));
  }, []);
  return ready;
}
