import { Center, Loader } from '@mantine/core';
import { type ComponentType, type LazyExoticComponent, lazy, type ReactNode, Suspense, useState } from 'react';

/** A component whose code loads on first use, or earlier through `preload()`, from a chunk of its own. */
export type LazyComponent<Props extends object> = ComponentType<Props> & { preload(): Promise<unknown> };

/** A component's code, loaded once: on first render, or earlier through `preload()`. */
class LazyCode<Props extends object> {
  loaded: ComponentType<Props> | null = null;
  /** For a render that comes before the code: suspends until it has arrived. */
  readonly Lazy: LazyExoticComponent<ComponentType<Props>>;
  private loading: Promise<ComponentType<Props>> | null = null;

  constructor(private readonly load: () => Promise<ComponentType<Props>>) {
    this.Lazy = lazy(async () => ({ default: await this.preload() }));
  }

  preload = (): Promise<ComponentType<Props>> => {
    this.loading ??= this.load().then(
      (component) => {
        this.loaded = component;
        return component;
      },
      (error: unknown) => {
        this.loading = null; // the next render tries again
        throw error;
      },
    );
    return this.loading;
  };
}

/** Renders the component at once when its code is there, through `React.lazy` otherwise. */
function Loaded<Props extends object>({ code, props }: { code: LazyCode<Props>; props: Props }) {
  // Chosen once per mount: switching from one to the other would remount the page.
  const [Component] = useState(() => code.loaded ?? code.Lazy);
  return <Component {...props} />;
}

/**
 * Like `React.lazy`, but once the code has arrived it renders at once instead of suspending for a
 * moment: a Suspense fallback, once shown, holds the content back for up to 300 ms (React throttles
 * reveals), which a page whose code was preloaded (web/src/boot/) must not pay.
 */
export function lazyComponent<Props extends object>(
  load: () => Promise<ComponentType<Props>>,
  fallback: ReactNode,
): LazyComponent<Props> {
  const code = new LazyCode(load);
  // biome-ignore lint/correctness/noComponentHookFactories: called once per lazy module at module level, never while rendering.
  function Lazy(props: Props) {
    return (
      <Suspense fallback={fallback}>
        <Loaded code={code} props={props} />
      </Suspense>
    );
  }
  return Object.assign(Lazy, { preload: code.preload });
}

/**
 * A route's page loaded on first use, in its own chunk, so the first screen downloads only the
 * code it shows (docs/performance.md, `web`). `load` imports the page's module; `name` picks its export.
 */
export function lazyPage<Name extends string>(
  load: () => Promise<Record<Name, ComponentType>>,
  name: Name,
): LazyComponent<Record<string, never>> {
  return lazyComponent(
    async () => (await load())[name],
    <Center mih={200}>
      <Loader aria-label="Loading the page" />
    </Center>,
  );
}
