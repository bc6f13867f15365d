import { z } from 'zod';
import { componentIdSchema, componentTabSchema } from './dashboard-components.js';

/**
 * Sections of a dashboard (docs/dashboards.md "Sections"): a titled header row laid out on the grid
 * like any component, full width. A section holds the components that start below its header and
 * above the next section's header, in the same tab; a reader folds it away (the choice is kept per
 * reader in the browser) and the rows below move up. Sections are components rather than a field of
 * the dashboard, so they ride along with tabs, the layout, YAML, duplicates and exports unchanged.
 */

export const sectionComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('section'),
    title: z.string().trim().min(1).max(200),
    tab_id: componentTabSchema,
    /** A line under the title. */
    description: z.string().trim().max(2000).optional(),
    /** How a reader who never folded or unfolded it first sees it (default: open). */
    collapsed: z.boolean().optional(),
  })
  .meta({ id: 'SectionComponent' });
export type SectionComponent = z.infer<typeof sectionComponentSchema>;

interface GridBox {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Placement<Box extends GridBox = GridBox> {
  component: { component_id: string; type: string };
  item: Box;
}

/** The sections of one tab's placements, top to bottom. */
function sectionsOf<P extends Placement>(placed: readonly P[]): P[] {
  return placed.filter(({ component }) => component.type === 'section').sort((a, b) => a.item.y - b.item.y);
}

/**
 * Each section's components (by id): those whose top row is below the section's header and above the
 * next section's. Components above the first section belong to none.
 */
export function sectionMembers(placed: readonly Placement[]): Map<string, string[]> {
  const sections = sectionsOf(placed);
  const members = new Map<string, string[]>(sections.map(({ component }) => [component.component_id, []]));
  for (const { component, item } of placed) {
    if (component.type === 'section') continue;
    const owner = sections.filter((section) => section.item.y + section.item.h <= item.y).at(-1);
    if (owner) members.get(owner.component.component_id)?.push(component.component_id);
  }
  return members;
}

/**
 * The placements a reader sees with the `collapsed` sections folded: their components left out and
 * every row below each folded band moved up by the band's height, so nothing leaves a gap.
 */
export function foldSections<P extends Placement>(placed: readonly P[], collapsed: ReadonlySet<string>): P[] {
  const sections = sectionsOf(placed);
  const hidden = new Set<string>();
  const bands: { from: number; rows: number }[] = [];
  sectionMembers(placed).forEach((ids, sectionId) => {
    if (!collapsed.has(sectionId)) return;
    const index = sections.findIndex(({ component }) => component.component_id === sectionId);
    const section = sections[index];
    if (!section) return;
    for (const id of ids) hidden.add(id);
    const start = section.item.y + section.item.h;
    const end = sections[index + 1]?.item.y ?? Math.max(start, ...placed.map(({ item }) => item.y + item.h));
    bands.push({ from: end, rows: end - start });
  });
  const shift = (y: number) => bands.reduce((rows, band) => (y >= band.from ? rows + band.rows : rows), 0);
  return placed
    .filter(({ component }) => !hidden.has(component.component_id))
    .map((placement) => ({ ...placement, item: { ...placement.item, y: placement.item.y - shift(placement.item.y) } }));
}

/** A section's layout entry spans the grid's width: what it holds is the rows below it, whole. */
export function checkSectionWidths(
  body: {
    components: readonly { component_id: string; type?: string }[];
    layout: readonly ({ component_id: string } & GridBox)[];
  },
  columns: number,
  context: z.RefinementCtx,
) {
  const sections = new Set(
    body.components.filter((component) => component.type === 'section').map(({ component_id }) => component_id),
  );
  body.layout.forEach((item, index) => {
    if (sections.has(item.component_id) && (item.x !== 0 || item.w !== columns)) {
      context.addIssue({
        code: 'custom',
        path: ['layout', index],
        message: `a section spans the whole width: x 0 and w ${columns}`,
      });
    }
  });
}
