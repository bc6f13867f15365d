import { RE2JS } from 're2js';
import type { DashboardYaml } from './dashboards.js';
import { compileFilePattern } from './file-pattern.js';
import type { ProjectDefinition } from './project-definition.js';
import { columnsExpansion, type Template } from './templates.js';

/**
 * A template applied to a results folder (docs/templates.md "Applying"): pure, so that the CLI
 * and the tests share it. What the folder lacks is left out cleanly: a collection whose pattern
 * takes no file, the joins and components that read it, the components that use a variable with
 * no value, and the tabs left empty. Nothing half-made is kept.
 */

export interface TemplateFolder {
  /** Every file's path relative to the run folder, `/`-separated. */
  files: readonly string[];
  /** The columns of a collection's first file (its header), or null when unknown. */
  columnsOf(tag: string): Promise<readonly string[] | null>;
}

export interface AppliedTemplate {
  /** The template applied. */
  template_id: string;
  definition: ProjectDefinition;
  dashboards: DashboardYaml[];
  variables: Record<string, string>;
  /** Files each kept collection takes. */
  files: Record<string, string[]>;
  left_out: { collections: string[]; components: string[] };
}

/** Variables that must have a value but have none: all of them, at once. */
export class TemplateVariablesError extends Error {
  override name = 'TemplateVariablesError';
  constructor(
    readonly missing: string[],
    readonly unknown: string[],
  ) {
    super(
      [
        missing.length > 0 ? `missing required variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}` : '',
        unknown.length > 0 ? `unknown variable${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : '',
      ]
        .filter((part) => part !== '')
        .join('; '),
    );
  }
}

/** The files each collection takes, by tag (a file goes to the first collection whose pattern takes it). */
export function templateFiles(template: Template, files: readonly string[]): Record<string, string[]> {
  const taken: Record<string, string[]> = {};
  for (const file of files) {
    const collection = template.collections.find((candidate) => compileFilePattern(candidate.pattern).test(file));
    if (collection) taken[collection.tag] = [...(taken[collection.tag] ?? []), file];
  }
  return taken;
}

/** Does the folder look like this template's pipeline output (every `detect.files` pattern takes a file)? */
export function templateFits(template: Template, files: readonly string[]): boolean {
  const patterns = template.detect?.files ?? [];
  return (
    patterns.length > 0 && patterns.every((pattern) => files.some((file) => compileFilePattern(pattern).test(file)))
  );
}

/** Compares versions such as `2.16.0` and `v2.9` part by part, numbers as numbers. */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.replace(/^v/i, '').split(/[.-]/);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const [x, y] = [left[index] ?? '0', right[index] ?? '0'];
    const difference = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/**
 * The template for a folder: of the pipeline its records name (that version, else the newest
 * older one, else the oldest newer one), else the first whose `detect.files` are all there; null:
 * the generic overview.
 */
export function chooseTemplate(
  templates: readonly Template[],
  files: readonly string[],
  recorded: { pipeline: string; version: string | null } | null,
): Template | null {
  if (recorded) {
    const same = templates
      .filter((template) => template.pipeline.toLowerCase() === recorded.pipeline.toLowerCase())
      .sort((a, b) => compareVersions(b.version, a.version));
    const version = recorded.version;
    const chosen =
      version === null
        ? same[0]
        : (same.find((template) => compareVersions(template.version, version) <= 0) ?? same.at(-1));
    if (chosen) return chosen;
  }
  return templates.find((template) => templateFits(template, files)) ?? null;
}

/** The value of each variable: given, else detected from the data, else its default. */
async function resolveVariables(
  template: Template,
  given: Readonly<Record<string, string>>,
  present: ReadonlySet<string>,
  folder: TemplateFolder,
): Promise<Record<string, string>> {
  const names = new Set(template.variables.map((variable) => variable.name));
  const unknown = Object.keys(given).filter((name) => !names.has(name));
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const variable of template.variables) {
    let value: string | undefined = given[variable.name];
    if (value === undefined && variable.detect && present.has(variable.detect.collection)) {
      const columns = (await folder.columnsOf(variable.detect.collection)) ?? [];
      value = variable.detect.columns.find((column) => columns.includes(column));
    }
    value ??= variable.default;
    if (value !== undefined) values[variable.name] = value;
    else if (variable.required) missing.push(variable.name);
  }
  if (missing.length > 0 || unknown.length > 0) throw new TemplateVariablesError(missing, unknown);
  return values;
}

/** Columns of the collections that `${columns(tag)}` items name, read before rendering. */
type KnownColumns = ReadonlyMap<string, readonly string[]>;

/** A list's `${columns(tag) - …}` items expanded; null when the collection's columns are unknown. */
function expandColumns(items: readonly unknown[], columns: KnownColumns): unknown[] | null {
  const expanded: unknown[] = [];
  for (const item of items) {
    const expansion = typeof item === 'string' ? columnsExpansion(/^\$\{(.*)\}$/.exec(item)?.[1] ?? '') : null;
    if (expansion === null) expanded.push(item);
    else {
      const known = columns.get(expansion.tag);
      if (!known || known.length === 0) return null;
      expanded.push(...known.filter((name) => !expansion.except.includes(name) && !expanded.includes(name)));
    }
  }
  return expanded;
}

/** Replaces `${name}` in every string; null when a string names a variable without a value. */
function substitute<T>(
  value: T,
  variables: Readonly<Record<string, string>>,
  columns: KnownColumns = new Map(),
): T | null {
  let unresolved = false;
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) {
      const expanded = expandColumns(item, columns);
      if (expanded === null) unresolved = true;
      return (expanded ?? item).map(walk);
    }
    if (typeof item === 'string')
      return item.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
        const replacement = variables[name];
        if (replacement === undefined) unresolved = true;
        return replacement ?? whole;
      });
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, walk(entry)]));
    return item;
  };
  const result = walk(value) as T;
  return unresolved ? null : result;
}

type TemplateCollection = Template['collections'][number];

/**
 * A collection with the variables of its derived columns filled in: a value is matched literally
 * in `regex` (escaped). A derived column naming a variable without a value is left out, as are
 * the joins on it.
 */
function renderCollection(
  collection: TemplateCollection,
  variables: Readonly<Record<string, string>>,
): TemplateCollection {
  if (collection.read_options?.derive === undefined) return collection;
  const { derive, ...options } = collection.read_options;
  const literal = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, RE2JS.quote(value)]));
  const rendered = derive.flatMap((column) => {
    const name = substitute(column.name, variables);
    const from = substitute(column.from, variables);
    const regex = substitute(column.regex, literal);
    return name === null || from === null || regex === null ? [] : [{ name, from, regex }];
  });
  return { ...collection, read_options: rendered.length > 0 ? { ...options, derive: rendered } : options };
}

/** One dashboard with what the folder cannot fill left out. */
function renderDashboard(
  dashboard: DashboardYaml,
  present: ReadonlySet<string>,
  values: { variables: Readonly<Record<string, string>>; columns: KnownColumns },
  leftOut: string[],
): DashboardYaml | null {
  const { variables } = values;
  const components = dashboard.components.flatMap((component) => {
    const reads = 'data_collection_id' in component ? component.data_collection_id : null;
    const rendered = reads === null || present.has(reads) ? substitute(component, variables, values.columns) : null;
    if (rendered === null) leftOut.push(component.component_id);
    return rendered === null ? [] : [rendered];
  });
  if (!components.some((component) => component.type !== 'text')) return null;
  const firstTab = dashboard.tabs[0]?.tab_id;
  const tabOf = (component: { tab_id?: string | undefined }) => component.tab_id ?? firstTab ?? '';
  // A tab left with nothing but text goes, its components with it; every kept one names its tab.
  const tabs = dashboard.tabs.filter((tab) =>
    components.some((component) => tabOf(component) === tab.tab_id && component.type !== 'text'),
  );
  const tabIds = new Set(tabs.map((tab) => tab.tab_id));
  const placed =
    dashboard.tabs.length === 0
      ? components
      : components.flatMap((component) => {
          if (tabIds.has(tabOf(component))) return [{ ...component, tab_id: tabOf(component) }];
          leftOut.push(component.component_id);
          return [];
        });
  const ids = new Set(placed.map((component) => component.component_id));
  const text = substitute({ title: dashboard.title, description: dashboard.description }, variables);
  return {
    ...dashboard,
    title: text?.title ?? dashboard.title,
    description: text?.description ?? dashboard.description,
    tabs,
    components: placed,
    layout: dashboard.layout.filter((item) => ids.has(item.component_id)),
  };
}

/** The collections whose columns `${columns(tag)}` items name. */
function expandedCollections(template: Template): Set<string> {
  const tags = new Set<string>();
  const text = JSON.stringify(template.dashboards);
  for (const match of text.matchAll(/\$\{(columns\([^}]*)\}/g)) {
    const expansion = columnsExpansion(match[1] as string);
    if (expansion) tags.add(expansion.tag);
  }
  return tags;
}

/** The project definition and dashboards a template makes of a folder (see the module's comment). */
export async function applyTemplate(
  template: Template,
  folder: TemplateFolder,
  options: { name: string; variables?: Readonly<Record<string, string>> },
): Promise<AppliedTemplate> {
  const files = templateFiles(template, folder.files);
  const present = new Set(Object.keys(files));
  const variables = await resolveVariables(template, options.variables ?? {}, present, folder);
  const collections = template.collections
    .filter((collection) => present.has(collection.tag))
    .map((collection) => renderCollection(collection, variables));
  // A join goes with either of its collections, or with a variable of its keys that has no value.
  const joins = template.joins.flatMap((join) => {
    const rendered = present.has(join.left) && present.has(join.right) ? substitute(join, variables) : null;
    return rendered === null ? [] : [rendered];
  });
  const columns = new Map<string, readonly string[]>();
  for (const tag of expandedCollections(template)) {
    const known = present.has(tag) ? await folder.columnsOf(tag) : null;
    if (known) columns.set(tag, known);
  }
  const leftOut: string[] = [];
  const dashboards = template.dashboards.flatMap((dashboard) => {
    const rendered = renderDashboard(dashboard, present, { variables, columns }, leftOut);
    return rendered === null ? [] : [rendered];
  });
  return {
    template_id: template.template_id,
    definition: {
      name: options.name,
      description: `${template.pipeline} ${template.version} results (template ${template.template_id}).`,
      workflows: [{ name: options.name, data_collections: collections }],
      ...(joins.length > 0 ? { joins } : {}),
    },
    dashboards,
    variables,
    files,
    left_out: {
      collections: template.collections.filter((c) => !present.has(c.tag)).map((c) => c.tag),
      components: leftOut,
    },
  };
}
