import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['server/src', 'cli/src', 'common/src', 'web/src', 'bench/src'];
/** The modules that build the application context (its builders, and the package's entry, which re-exports it). */
const COMPOSITION_ROOTS = [
  'server/src/context.ts',
  'server/src/context-wiring.ts',
  'server/src/server.ts',
  'server/src/index.ts',
];
/** The server package's entries (package.json `exports`): they re-export, from every layer. */
const PACKAGE_ENTRIES = ['server/src/index.ts', 'server/src/basics.ts'];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A relative specifier as the compiler resolves it under NodeNext: `./x.js` is `./x.ts` or `./x.tsx`. */
function resolveRelative(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.js$/, '');
  const candidates = [target, `${stem}.ts`, `${stem}.tsx`, join(target, 'index.ts')];
  const found = candidates.find((candidate) => /\.tsx?$/.test(candidate) && existsSync(candidate));
  if (found === undefined) throw new Error(`${relative(repository, from)}: cannot resolve ${specifier}`);
  return found;
}

/**
 * Every module's relative imports, type-only ones included: a type import ties two modules together
 * as much as a value import does, even though the compiler erases it.
 */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of PACKAGES) {
    for (const file of sourceFiles(join(repository, folder))) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((imported) => imported.fileName)
        // Stylesheets and other assets the web app imports are not modules of the graph.
        .filter((specifier) => specifier.startsWith('.') && !/\.(css|svg|png|json)$/.test(specifier))
        .map((specifier) => resolveRelative(file, specifier));
      graph.set(relative(repository, file), [...new Set(targets.map((target) => relative(repository, target)))]);
    }
  }
  return graph;
}

const ANALYTICS = 'server/src/analytics/';

/** The relative imports of the test files (they are not modules of the graph but must keep its doors). */
function testImports(): [string, string[]][] {
  return ['server/test', 'test'].flatMap((folder) =>
    sourceFiles(join(repository, folder)).map((file): [string, string[]] => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((imported) => imported.fileName)
        .filter((specifier) => specifier.startsWith('.') && specifier.includes('analytics/'))
        .map((specifier) => relative(repository, resolveRelative(file, specifier)));
      return [relative(repository, file), targets];
    }),
  );
}

/** The strongly connected components with more than one module (or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, next);
    low.set(module, next);
    next += 1;
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module) as number, index.get(target) as number));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || graph.get(module)?.includes(module)) found.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

describe('the import graph', () => {
  const graph = importGraph();

  it('covers the sources', () => {
    expect(graph.has('server/src/context.ts')).toBe(true);
    expect(graph.get('server/src/server.ts')).toContain('server/src/context.ts');
  });

  it('has no cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });

  it('reaches the application context only from the composition roots', () => {
    // Everything else is handed the collaborators it uses, so its imports say what it depends on.
    const importers = [...graph]
      .filter(([, targets]) => targets.includes('server/src/context.ts'))
      .map(([module]) => module);
    expect(importers.filter((module) => !COMPOSITION_ROOTS.includes(module))).toEqual([]);
  });

  it('layers the folders of server/src: below the HTTP app and the route plugins, no folder cycle', () => {
    // A folder is a part of the house (auth, users, projects, dashboards…); route plugins and the
    // HTTP app sit on top of them all and may reach into any, so they are left out.
    const folderOf = (module: string) => /^server\/src\/([^/]+)\//.exec(module)?.[1];
    const folders = new Map<string, string[]>();
    for (const [module, targets] of graph) {
      const from = folderOf(module);
      if (from === undefined || from === 'http' || module.endsWith('routes.ts')) continue;
      const to = targets.map(folderOf).filter((folder): folder is string => folder !== undefined && folder !== from);
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
    }
    expect(folders.size).toBeGreaterThan(10);
    expect(cycles(folders)).toEqual([]);
  });

  it('reaches the analytics layer only through its index.ts', () => {
    // analytics/ computes from table snapshots behind one door, so its inside can be reshaped
    // without touching its callers; tests of the server use the same door.
    const callers = [...graph, ...testImports()].filter(([module]) => !module.startsWith(ANALYTICS));
    const reachingIn = callers.flatMap(([module, targets]) =>
      targets
        .filter((target) => target.startsWith(ANALYTICS) && target !== `${ANALYTICS}index.ts`)
        .map((target) => `${module} -> ${target}`),
    );
    expect(reachingIn).toEqual([]);
  });

  it('keeps HTTP to the route plugins: services and the layers below never import http/', () => {
    const reachingUp = [...graph]
      .filter(([module]) => module.startsWith('server/src/') && !module.startsWith('server/src/http/'))
      .filter(([module]) => !module.endsWith('routes.ts') && !COMPOSITION_ROOTS.includes(module))
      .filter(([module]) => !PACKAGE_ENTRIES.includes(module))
      .flatMap(([module, targets]) =>
        targets.filter((target) => target.startsWith('server/src/http/')).map((target) => `${module} -> ${target}`),
      );
    expect(reachingUp).toEqual([]);
  });
});
