import { useState } from 'react';
import { browserStorage, readTourRecord, type TourRecord, writeTourRecord } from './steps.js';

/**
 * Whether the demo tour is showing: at a visitor's first visit in demo mode, never again once done
 * or skipped (localStorage), and whenever "Tour" in the header reopens it.
 */
export function useDemoTour(demo: boolean) {
  const [open, setOpen] = useState(() => demo && readTourRecord(browserStorage()) === null);
  return {
    open: demo && open,
    start: () => setOpen(true),
    end: (record: TourRecord) => {
      writeTourRecord(browserStorage(), record);
      setOpen(false);
    },
  };
}
