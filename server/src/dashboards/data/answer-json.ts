/**
 * Each component answer's JSON, made once per answer object: the answer cache weighs an answer by
 * it and the data route sends it, and a clustered heatmap's answer of 10 MB took 0.1–0.2 s to
 * stringify each time. Held only as long as the answer itself is (the cache's entries).
 */
const made = new WeakMap<object, string>();

export function answerJson(data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify(data);
  const known = made.get(data);
  if (known !== undefined) return known;
  const json = JSON.stringify(data);
  made.set(data, json);
  return json;
}

/** The answer a JSON text of `answerJson` holds, its JSON remembered: sending it writes that text again. */
export function answerOfJson<T extends object>(json: string): T {
  const data: T = JSON.parse(json);
  made.set(data, json);
  return data;
}
