import {
  checkDashboardContent,
  type DashboardComponent,
  type DashboardTab,
  dashboardComponentSchema,
  dashboardTabSchema,
  type LayoutItem,
  layoutItemSchema,
} from '@service/common';
import { z } from 'zod';
import { type FieldProblem, formatPath } from '../errors.js';

/**
 * What a dashboard file that does not follow the schema still says: its project, the components
 * that parse (the others stand in as empty text, so indexes keep pointing at the file), and the
 * problems between its parts (ids, tabs, layout) that the schema's own check skips once anything
 * failed. An import reports these with the schema's problems and the collections' ones, all at once.
 */
export interface FileParts {
  projectId: string | undefined;
  components: DashboardComponent[];
  problems: FieldProblem[];
}

const stringAt = (item: unknown, key: string): string | undefined => {
  const value = item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/** Each item of `raw[key]` parsed alone; `stand` replaces an item that does not parse. */
function itemsOf<T>(raw: object, key: string, schema: z.ZodType<T>, stand: (item: unknown, index: number) => T) {
  const list = (raw as Record<string, unknown>)[key];
  const items: unknown[] = Array.isArray(list) ? list : [];
  const failed = new Set<number>();
  const parsed = items.map((item, index) => {
    const result = schema.safeParse(item);
    if (result.success) return result.data;
    failed.add(index);
    return stand(item, index);
  });
  return { parsed, failed };
}

/** The parts of a file the schema refused (`raw`: the YAML as plain data). */
export function partsOfInvalidFile(raw: unknown): FileParts {
  const file = raw !== null && typeof raw === 'object' ? raw : {};
  const tabs = itemsOf<DashboardTab>(file, 'tabs', dashboardTabSchema, (item, index) => ({
    tab_id: stringAt(item, 'tab_id') ?? `tabs[${index}]`,
    title: '-',
  }));
  const components = itemsOf<DashboardComponent>(file, 'components', dashboardComponentSchema, (item, index) => ({
    type: 'text',
    component_id: stringAt(item, 'component_id') ?? `components[${index}]`,
    tab_id: stringAt(item, 'tab_id'),
    markdown: '',
  }));
  // A box no other overlaps: an entry that does not parse has its own problem already.
  const layout = itemsOf<LayoutItem>(file, 'layout', layoutItemSchema, (item) => ({
    component_id: stringAt(item, 'component_id') ?? '',
    x: -1000,
    y: -1000,
    w: 0,
    h: 0,
  }));
  const failed: Record<string, Set<number>> = {
    tabs: tabs.failed,
    components: components.failed,
    layout: layout.failed,
  };
  const content = { tabs: tabs.parsed, components: components.parsed, layout: layout.parsed };
  const checked = z
    .unknown()
    .superRefine((_value, context) => checkDashboardContent(content, context))
    .safeParse(null);
  const problems = (checked.success ? [] : checked.error.issues)
    // An item that did not parse has said what is wrong with it; its stand-in says nothing more.
    .filter((issue) => {
      const [list, index] = issue.path;
      return !(typeof list === 'string' && typeof index === 'number' && failed[list]?.has(index));
    })
    .map((issue) => ({ path: formatPath(undefined, issue.path), message: issue.message }));
  return { projectId: stringAt(file, 'project_id'), components: components.parsed, problems };
}
