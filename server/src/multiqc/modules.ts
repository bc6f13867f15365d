import type { Json } from './plots.js';

/** A MultiQC module of a report: `fastqc`, `cutadapt`, … */
export interface MultiqcModule {
  anchor: string;
  name: string;
}

interface ModuleJson {
  anchor: string;
  name: string;
  /** The HTML of each section's plot, which names the plot's anchor. */
  plots: string[];
}

/** The modules a report's `run_metadata.modules` JSON lists, in the report's order. */
export function modulesOf(modulesJson: string | null): MultiqcModule[] {
  return parseModules(modulesJson).map(({ anchor, name }) => ({ anchor, name }));
}

/**
 * The module a plot belongs to: the one whose sections' HTML names the plot's anchor, else the one
 * whose anchor starts the plot's (`fastqc_…`, `fastqc-…`), else `other`.
 */
export function moduleOfPlot(
  modulesJson: string | null,
  plotAnchor: string,
  modules: readonly MultiqcModule[],
): string {
  const quoted = [`"${plotAnchor}"`, `'${plotAnchor}'`];
  const named = parseModules(modulesJson).find((module) =>
    module.plots.some((html) => quoted.some((text) => html.includes(text))),
  );
  if (named !== undefined) return named.anchor;
  const prefixed = [...modules]
    .sort((a, b) => b.anchor.length - a.anchor.length)
    .find((module) => plotAnchor.startsWith(`${module.anchor}_`) || plotAnchor.startsWith(`${module.anchor}-`));
  return prefixed?.anchor ?? 'other';
}

const parsed = new Map<string, ModuleJson[]>();

function parseModules(modulesJson: string | null): ModuleJson[] {
  if (modulesJson === null) return [];
  const known = parsed.get(modulesJson);
  if (known !== undefined) return known;
  let value: Json;
  try {
    value = JSON.parse(modulesJson) as Json;
  } catch {
    value = null;
  }
  const modules = (Array.isArray(value) ? value : []).flatMap((entry): ModuleJson[] => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return [];
    const anchor = typeof entry.anchor === 'string' ? entry.anchor : null;
    if (anchor === null) return [];
    const name = typeof entry.name === 'string' ? entry.name : anchor;
    const sections = Array.isArray(entry.sections) ? entry.sections : [];
    const plots = sections.flatMap((section) =>
      typeof section === 'object' && section !== null && !Array.isArray(section) && typeof section.plot === 'string'
        ? [section.plot]
        : [],
    );
    return [{ anchor, name, plots }];
  });
  // Few distinct reports are read by one process; the parse is kept per text.
  if (parsed.size > 100) parsed.clear();
  parsed.set(modulesJson, modules);
  return modules;
}
