/** One server-sent event: its `id:` (null when it had none), name and data. */
export interface ServerEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body (the parts the live stream uses: `id`, `event`, `data`;
 * comments and `retry` skipped), handing each event on as it arrives; an `id:` alone moves
 * `onId` without an event. Resolves when the stream ends.
 */
export async function readServerEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerEvent) => void,
  onId: (id: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      let id: string | null = null;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = text;
        else if (field === 'event') event = text;
        else if (field === 'data') data.push(text);
      }
      if (id !== null) onId(id);
      if (data.length > 0) onEvent({ id, event, data: data.join('\n') });
    }
  }
}
