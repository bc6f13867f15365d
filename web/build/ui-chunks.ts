import { dirname, resolve } from 'node:path';
import type { GetModuleInfo, ManualChunkMeta, ModuleInfo } from 'rollup';

/** Mantine and the libraries only its components use. */
export const UI_LIBRARIES =
  /node_modules\/(@mantine|@floating-ui|react-remove-scroll|react-style-singleton|use-callback-ref|use-sidecar|get-nonce|tslib|aria-hidden)\//;

/** Mantine's index modules: they import every component, used or not. */
const BARRELS = /node_modules\/@mantine\/(core|hooks)\/esm\/index\.mjs$/;

/**
 * With the first screen whatever it uses: Mantine's hooks (small; components of both chunks import
 * them through their index) and React's JSX runtime. Left to Rollup, either would land in
 * `ui-pages` and make the two chunks import each other.
 */
const ALWAYS_FIRST = /node_modules\/(@mantine\/hooks|react)\//;

/** Only re-exports: left to Rollup, which binds each import to the component's own module. */
const CORE_BARREL = /node_modules\/@mantine\/core\/esm\/index\.mjs$/;

/** An ESTree node, as much of it as this file reads. */
interface Node {
  type: string;
  source?: { value?: unknown };
  specifiers?: { type: string; imported?: { name?: string }; local?: { name?: string } }[];
  body?: Node[];
}

function importsOf(info: ModuleInfo): Node[] {
  const program = info.ast as Node | null;
  return (program?.body ?? []).filter((node) => node.type === 'ImportDeclaration');
}

/** The names a module imports from Mantine's index modules, by index module. */
function namesFromBarrels(info: ModuleInfo, into: Map<string, Set<string>>): void {
  for (const node of importsOf(info)) {
    const from = node.source?.value;
    if (from !== '@mantine/core' && from !== '@mantine/hooks') continue;
    const names = into.get(from) ?? new Set<string>();
    for (const specifier of node.specifiers ?? []) if (specifier.imported?.name) names.add(specifier.imported.name);
    into.set(from, names);
  }
}

/** The module an index module takes `name` from (Mantine's index imports each name, then exports it). */
function moduleOfName(barrel: ModuleInfo, name: string): string | undefined {
  for (const node of importsOf(barrel)) {
    const source = node.source?.value;
    if (typeof source !== 'string' || !source.startsWith('.')) continue;
    if ((node.specifiers ?? []).some((specifier) => specifier.local?.name === name))
      return resolve(dirname(barrel.id), source);
  }
  return undefined;
}

/**
 * The UI library modules the first screen uses: the app's modules the entry imports statically
 * name Mantine's components; those components' modules and what they import (never through an
 * index module, which imports everything) are needed; the rest only lazy pages use.
 */
function uiOfEntry(getModuleInfo: GetModuleInfo, moduleIds: readonly string[]): Set<string> {
  const entries = moduleIds.filter((id) => getModuleInfo(id)?.isEntry === true);
  const needed = new Set<string>();
  const visitUi = (id: string) => {
    if (needed.has(id) || BARRELS.test(id)) return;
    needed.add(id);
    for (const imported of getModuleInfo(id)?.importedIds ?? []) visitUi(imported);
  };
  const names = new Map<string, Set<string>>();
  const app = new Set<string>();
  const visitApp = (id: string) => {
    const info = getModuleInfo(id);
    if (info === null || app.has(id)) return;
    // A library the app imports directly (Mantine's stylesheet) is the first screen's too.
    if (id.includes('/node_modules/')) return UI_LIBRARIES.test(id) ? visitUi(id) : undefined;
    app.add(id);
    namesFromBarrels(info, names);
    for (const imported of info.importedIds) visitApp(imported);
  };
  for (const entry of entries) visitApp(entry);
  for (const barrel of moduleIds.filter((id) => BARRELS.test(id))) {
    const info = getModuleInfo(barrel);
    const specifier = barrel.includes('@mantine/core/') ? '@mantine/core' : '@mantine/hooks';
    for (const name of names.get(specifier) ?? []) {
      const id = info === null ? undefined : moduleOfName(info, name);
      if (id !== undefined) visitUi(id);
    }
  }
  return needed;
}

/**
 * Rollup's chunk of a UI library module: `ui` (loaded with the entry) for what the first screen
 * uses, `ui-pages` (one chunk, loaded with the first lazy page that needs it) for the rest. One
 * instance per build: the split is computed once, at the first module asked about.
 */
export function uiChunks(): (id: string, meta: ManualChunkMeta) => string | undefined {
  let entryUi: Set<string> | undefined;
  return (id, { getModuleIds, getModuleInfo }) => {
    if (CORE_BARREL.test(id)) return undefined;
    if (ALWAYS_FIRST.test(id)) return 'ui';
    if (!UI_LIBRARIES.test(id)) return undefined;
    entryUi ??= uiOfEntry(getModuleInfo, [...getModuleIds()]);
    return entryUi.has(id) ? 'ui' : 'ui-pages';
  };
}
