/** The media type of an answer streamed as one JSON value per line. */
export const NDJSON = 'application/x-ndjson';

/**
 * Reads a body of JSON lines, handing each parsed value to `onValue` as soon as its line is
 * complete (blank lines skipped). A line that is not JSON throws a `SyntaxError`.
 */
export async function readJsonLines(body: ReadableStream<Uint8Array>, onValue: (value: unknown) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  const take = (line: string) => {
    if (line.trim() !== '') onValue(JSON.parse(line));
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const lines = (rest + decoder.decode(value, { stream: true })).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) take(line);
  }
  take(rest + decoder.decode());
}
