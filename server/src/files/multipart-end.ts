import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { DomainError } from '../errors.js';

/**
 * Watches a multipart request for its closing delimiter (`--boundary--`). When a body stops in
 * the middle of a file, busboy errors or destroys that file's stream without ending it, often
 * before the route has the part in hand, and a reader that comes later waits forever. Guarded
 * streams fail with `malformed_body` instead.
 *
 * Create it right after the multipart parser has piped the request (before the request flows),
 * so that it sees every byte.
 */
export class MultipartEnd {
  private closed = false;
  private ended = false;
  private tail = Buffer.alloc(0);
  private readonly guarded = new Set<PassThrough>();

  constructor(request: IncomingMessage) {
    const boundary = /boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(request.headers['content-type'] ?? '');
    const delimiter = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ''}--`);
    const onData = (chunk: Buffer) => {
      const window = Buffer.concat([this.tail, chunk]);
      if (window.includes(delimiter)) {
        this.closed = true;
        request.off('data', onData);
      } else {
        this.tail = window.subarray(Math.max(0, window.length - delimiter.length + 1));
      }
    };
    request.on('data', onData);
    request.once('end', () => {
      this.ended = true;
      if (!this.closed) for (const stream of this.guarded) stream.destroy(cutOff());
    });
  }

  /** True once the body has ended without its closing delimiter. */
  get cutOff(): boolean {
    return this.ended && !this.closed;
  }

  /**
   * A stream of the part's content that ends when it ends, and fails when it fails or when the body
   * turns out to be cut off. Throws at once when the body already has.
   */
  guard(stream: Readable): Readable {
    if (this.cutOff) {
      stream.resume();
      throw cutOff();
    }
    const out = new PassThrough();
    this.guarded.add(out);
    let complete = false;
    stream.once('end', () => {
      complete = true;
    });
    stream.on('error', (error) => out.destroy(error));
    // Destroyed without an error (the parser does that when the client goes away): still a failure.
    stream.once('close', () => {
      if (!complete) out.destroy(cutOff());
    });
    stream.pipe(out);
    return out;
  }
}

export function cutOff(): DomainError {
  return new DomainError(
    'malformed_body',
    'the multipart body ended before its closing boundary (the upload was cut off): send the file again',
  );
}
