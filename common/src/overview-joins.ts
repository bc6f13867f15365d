/**
 * Joins the generated overview declares (docs/dashboards.md "Overview dashboards"): two
 * collections that have a key column of the same name (overview-columns.ts `keyCandidates`) whose
 * values overlap — at least one value in common, and at least half of the smaller sample. Pure: the
 * server reads each candidate's sample of distinct values in DuckDB and passes them here.
 */

export interface OverviewJoin {
  left: string;
  right: string;
  /** The key column, named alike on both sides. */
  column: string;
}

/** Share of the smaller sample of values the other must have. */
export const JOIN_OVERLAP = 0.5;

export function detectJoins(
  samples: readonly { data_collection_id: string; column: string; values: readonly string[] }[],
  declared: readonly { left: string; right: string }[] = [],
): OverviewJoin[] {
  const joined = new Set(declared.flatMap(({ left, right }) => [`${left}\u0000${right}`, `${right}\u0000${left}`]));
  const joins: OverviewJoin[] = [];
  samples.forEach((a, i) => {
    for (const b of samples.slice(i + 1)) {
      if (a.column !== b.column || a.data_collection_id === b.data_collection_id) continue;
      if (joined.has(`${a.data_collection_id}\u0000${b.data_collection_id}`)) continue;
      const smaller = a.values.length <= b.values.length ? a.values : b.values;
      const other = new Set(smaller === a.values ? b.values : a.values);
      const shared = smaller.filter((value) => other.has(value)).length;
      if (shared === 0 || shared < JOIN_OVERLAP * smaller.length) continue;
      joins.push({ left: a.data_collection_id, right: b.data_collection_id, column: a.column });
      joined.add(`${a.data_collection_id}\u0000${b.data_collection_id}`);
      joined.add(`${b.data_collection_id}\u0000${a.data_collection_id}`);
    }
  });
  return joins;
}

/** A join's name: `overview_<left tag>_<right tag>`, cut to a tag's 100 characters. */
export function joinName(leftTag: string, rightTag: string): string {
  return `overview_${leftTag}_${rightTag}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
}
