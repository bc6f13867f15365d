/** Where the demo tour's progress is kept (docs/architecture.md "Dashboards": remembered in the browser). */
export const TOUR_STORAGE_KEY = 'service.demo-tour';

export type TourStepId = 'welcome' | 'dashboards' | 'sign-in' | 'duplicate' | 'projects';

export interface TourStep {
  id: TourStepId;
  title: string;
  body: (hours: number) => string;
}

/**
 * The five steps, in the order docs/dashboards.md gives them. Each points at the element whose
 * `data-tour` attribute is its id: the mode badge, the Dashboards link, Sign In, Duplicate to edit, the Projects link.
 */
export const TOUR_STEPS: readonly TourStep[] = [
  {
    id: 'welcome',
    title: 'Welcome',
    body: (hours) =>
      `This is a demo environment: look around freely. Signing in gives you a temporary account; temporary sessions last ${hours} h, then the account and what it made are removed.`,
  },
  {
    id: 'dashboards',
    title: 'Explore Dashboards',
    body: () => 'Dashboards show a project’s data as charts, numbers, filters and tables. Open one from here.',
  },
  {
    id: 'sign-in',
    title: 'Sign In',
    body: () => 'Sign in with one click as a temporary user to make dashboards of your own.',
  },
  {
    id: 'duplicate',
    title: 'Duplicate to Edit',
    body: () =>
      'You cannot change a dashboard someone else made, but “Duplicate to edit” makes your own copy and opens it in the editor.',
  },
  {
    id: 'projects',
    title: 'Explore Projects',
    body: () => 'Projects hold the data behind the dashboards: workflows, data collections and their tables.',
  },
];

export type TourRecord = 'done' | 'skipped';

export function readTourRecord(storage: Pick<Storage, 'getItem'> | null): TourRecord | null {
  try {
    const value = storage?.getItem(TOUR_STORAGE_KEY) ?? null;
    return value === 'done' || value === 'skipped' ? value : null;
  } catch {
    return null;
  }
}

export function writeTourRecord(storage: Pick<Storage, 'setItem'> | null, record: TourRecord): void {
  try {
    storage?.setItem(TOUR_STORAGE_KEY, record);
  } catch {
    // Storage blocked: the tour may show again next visit, nothing worse.
  }
}

export function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
