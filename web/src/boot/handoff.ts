/**
 * How the boot script hands the GETs it started to the app: a list on `window`, read once by
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

declare global {
  interface Window {
    /** Left by the boot script (web/src/boot/boot.ts), taken by the app. */
    __serviceEarlyGets?: EarlyGet[];
  }
}

/** Takes what the boot script left (once: a second call finds nothing). */
export function takeEarlyGets(target: Window): EarlyGet[] {
  const gets = target.__serviceEarlyGets ?? [];
  delete target.__serviceEarlyGets;
  return gets;
}
