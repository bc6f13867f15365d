/**
 * Uniform samples by hash (docs/dashboards.md, points past a chart's budget): the rows kept are
 * those first by the hash of their values, the same every time. Sorting every row by its hash
 * costs a full sort; only the rows whose hash is under a bound expected to keep half again the
 * budget need sorting. Holding at least `budget` rows, they hold the `budget` first ones of all
 * rows; the caller checks that and, in the rare case they do not, sorts every row.
 */

/** A 64-bit hash bound under which about 1.5 × `budget` + 100 of `rows` uniformly hashed rows fall; null: all of them. */
function hashBound(budget: number, rows: number): bigint | null {
  const millionths = Math.ceil(((1.5 * budget + 100) / rows) * 1_000_000);
  // All of them, or so nearly that sorting every row costs the same.
  if (millionths >= 1_000_000) return null;
  return (BigInt(millionths) * 2n ** 64n) / 1_000_000n;
}

/** The condition that a row's `hash` (SQL, a UBIGINT) is under the bound. */
const underHashBound = (hash: string, bound: bigint) => `${hash} < CAST(${bound} AS UBIGINT)`;

/**
 * The first `budget` of `rows` by `hash`, as `read` answers them: asked for the rows under the
 * bound (`read`'s condition), and again for every row (null) when there is no bound or fewer than
 * `budget` came back (`kept` counts the sampled rows of an answer; by default, all of them).
 */
export async function firstByHash<T>(
  sample: { hash: string; budget: number; rows: number },
  read: (under: string | null) => Promise<T[]>,
  kept: (answer: readonly T[]) => number = (answer) => answer.length,
): Promise<T[]> {
  const bound = hashBound(sample.budget, sample.rows);
  if (bound !== null) {
    const answer = await read(underHashBound(sample.hash, bound));
    if (kept(answer) >= sample.budget) return answer;
  }
  return read(null);
}
