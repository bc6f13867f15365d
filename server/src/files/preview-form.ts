import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { type FilePreviewRequest, filePreviewRequestSchema } from '@service/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { cutOff, MultipartEnd } from './multipart-end.js';
import type { PreviewUpload } from './preview.js';

/** How a field of the form failed to parse, as field errors under `options`. */
function optionsOf(text: string): FilePreviewRequest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DomainError(
      'validation_failed',
      'the field `options` is not JSON: send the preview options as a JSON object',
      [{ path: 'options', message: 'send the preview options as a JSON object' }],
    );
  }
  const parsed = filePreviewRequestSchema.safeParse(json);
  if (!parsed.success) {
    throw new DomainError(
      'validation_failed',
      'the preview options are not valid: fix the options listed, or send none to have them detected',
      parsed.error.issues.map((issue) => ({ path: ['options', ...issue.path].join('.'), message: issue.message })),
    );
  }
  return parsed.data;
}

/**
 * Reads the form of `POST /projects/{id}/files/preview`: an optional field `options` (the JSON
 * body of `POST /files/{id}/preview`), then the part `file`, which is handed to `use` while it
 * streams in (busboy gives the next part only once this one has been read).
 */
export async function withPreviewForm<T>(
  request: FastifyRequest,
  use: (upload: PreviewUpload, options: FilePreviewRequest) => Promise<T>,
): Promise<T> {
  let options: FilePreviewRequest = {};
  let answer: { value: T } | undefined;
  let end: MultipartEnd | undefined;
  try {
    const parts = request.parts();
    // The first step pipes the request into the parser; the watcher must see every byte after that.
    const first = parts.next();
    end = new MultipartEnd(request.raw);
    for (let next = await first; next.done !== true; next = await parts.next()) {
      const part: MultipartFile | MultipartValue = next.value;
      if (part.type === 'field' && part.fieldname === 'options' && answer === undefined) {
        options = optionsOf(String(part.value));
      } else if (part.type === 'file' && part.fieldname === 'file' && answer === undefined) {
        answer = { value: await use({ name: part.filename, content: end.guard(part.file) }, options) };
      } else {
        if (part.type === 'file') part.file.resume();
        throw new DomainError(
          'validation_failed',
          'the form has a part this route does not take: send the field `options` (optional), then one part `file`',
        );
      }
    }
  } catch (error) {
    if (end?.cutOff && !(error instanceof DomainError)) throw cutOff();
    throw error;
  }
  if (answer === undefined) {
    throw new DomainError('validation_failed', 'no file was sent: add the file as the form’s last part, named `file`', [
      { path: 'file', message: 'required' },
    ]);
  }
  return answer.value;
}
