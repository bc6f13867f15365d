import { Center, Loader } from '@mantine/core';
import { type ComponentType, lazy, Suspense } from 'react';

/**
 * A route's page loaded on first use, in its own chunk, so the first screen downloads only the
 * code it shows (docs/performance.md, `web`). `load` imports the page's module; `name` picks its export.
 */
export function lazyPage<Name extends string>(
  load: () => Promise<Record<Name, ComponentType>>,
  name: Name,
): ComponentType {
  const Page = lazy(async () => {
    const page: ComponentType = (await load())[name];
    return { default: page };
  });
  // biome-ignore lint/correctness/noComponentHookFactories: called once per page at module level, never while rendering.
  return function LazyPage() {
    return (
      <Suspense
        fallback={
          <Center mih={200}>
            <Loader aria-label="Loading the page" />
          </Center>
        }
      >
        <Page />
      </Suspense>
    );
  };
}
