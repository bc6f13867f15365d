/**
 * Which sections a reader folded, kept in this browser per dashboard (docs/dashboards.md
 * "Sections"): `{section id: folded}`, a section the reader never touched absent. Without
 * dependencies: the boot script reads it too (web/src/boot/first-screen.ts).
 */
export type SectionChoices = Record<string, boolean>;

const storageKey = (dashboardId: string) => `service.sections.${dashboardId}`;

/** The reader's choices on this dashboard; none when storage is refused or holds something not ours. */
export function storedSectionChoices(dashboardId: string): SectionChoices {
  try {
    // Inside the try: reading `localStorage` itself throws where the browser blocks storage.
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(dashboardId)) ?? '{}');
    if (parsed === null || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, folded]) => typeof folded === 'boolean'));
  } catch {
    return {};
  }
}

export function storeSectionChoices(dashboardId: string, choices: SectionChoices) {
  try {
    localStorage.setItem(storageKey(dashboardId), JSON.stringify(choices));
  } catch {
    // Not remembered across visits, still folded for this one.
  }
}

/** Whether a section shows folded: the reader's choice, else as its author set it. */
export const isFolded = (choices: SectionChoices, section: { component_id: string; collapsed?: boolean | undefined }) =>
  choices[section.component_id] ?? section.collapsed ?? false;
