/**
 * How the boot script hands the requests it started to the app: lists on `window`, read once by
 * `main.tsx`. Types only, so that both sides agree on the shape.
 */

/** A GET of the API that the boot script started before the app's code arrived. */
export interface EarlyGet {
  /** The URL as `apiUrl` builds it. */
  url: string;
  /** The bearer token it carries (null: none). */
  token: string | null;
  response: Promise<Response>;
}

/**
 * A read sent as a POST (a dashboard's data) that the boot script started once it knew its body:
 * `sent` settles with the body and the answer, or with null when the boot script sent nothing.
 */
export interface EarlyPost {
  url: string;
  token: string | null;
  sent: Promise<{ body: string; response: Promise<Response> } | null>;
}

/** What the boot script started. */
export interface EarlyRequests {
  gets: EarlyGet[];
  posts: EarlyPost[];
}

declare global {
  interface Window {
    /** Left by the boot script (web/src/boot/boot.ts), taken by the app. */
    __serviceEarly?: EarlyRequests;
  }
}

/** Takes what the boot script left (once: a second call finds nothing). */
export function takeEarlyRequests(target: Window): EarlyRequests {
  const early = target.__serviceEarly ?? { gets: [], posts: [] };
  delete target.__serviceEarly;
  return early;
}
