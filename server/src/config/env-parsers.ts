import { isIP } from 'node:net';
import { z } from 'zod';

/** Booleans as docs/architecture.md "Configuration" accepts them: true/false/1/0/yes/no, any case. */
export const envBoolean = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ['true', 'false', '1', '0', 'yes', 'no'].includes(value), {
    message: 'must be one of true, false, 1, 0, yes, no',
  })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const envPositiveNumber = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'must be a positive number')
  .transform(Number)
  .refine((value) => value > 0, 'must be a positive number');

/** Zero or more; zero usually turns the feature off. */
export const envNonNegativeNumber = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'must be a number, 0 or more')
  .transform(Number);

export function envInteger(min: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be an integer from ${min} to ${max}`);
}

export const envCommaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

// A line break or other control character in a name, key or path is a copy-and-paste slip, never intended.
export const envNonEmpty = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((value) => !/\p{Cc}/u.test(value), 'must not contain line breaks or other control characters');

/** A comma list that names at least one item (`,` alone is a slip, not "none"). */
export const envNonEmptyList = envCommaList.refine((items) => items.length > 0, 'must name at least one item');

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An address to listen on: an IP address or a host name (no brackets, scheme or port). */
export const envHost = z
  .string()
  .trim()
  .refine((value) => isIP(value) !== 0 || HOSTNAME.test(value), 'must be an IP address or a host name');

/** The names proxy-addr (Fastify's `trustProxy`) knows besides addresses. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What Fastify's `trustProxy` accepts: an IP address, `address/bits`, `address/netmask` or a proxy-addr name. */
export function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (version === 4 ? 32 : 128);
  return version === 4 && isIP(range) === 4;
}

export const envProxyList = envNonEmptyList.superRefine((entries, context) => {
  const wrong = entries.filter((entry) => !isProxyAddress(entry));
  if (wrong.length > 0) {
    context.addIssue({
      code: 'custom',
      message: `${wrong.join(', ')}: each entry must be an IP address, a CIDR range (10.0.0.0/8) or loopback, linklocal, uniquelocal`,
    });
  }
});

/** One `Host` a browser may use: a host name or IP address, with an optional `:port` (IPv6 in brackets). */
export function isAllowedHostEntry(entry: string): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(entry);
  if (!match?.[1]) return false;
  const name = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1];
  if (match[2] !== undefined && Number(match[2]) > 65535) return false;
  return match[1].startsWith('[') ? isIP(name) === 6 : isIP(name) === 4 || HOSTNAME.test(name);
}

export const envAllowedHosts = envNonEmptyList
  .transform((entries) => entries.map((entry) => entry.toLowerCase()))
  .superRefine((entries, context) => {
    const wrong = entries.filter((entry) => !isAllowedHostEntry(entry));
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `${wrong.join(', ')}: each entry must be a host name or IP address, optionally with :port`,
      });
    }
  });

export const envHttpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

const rateUnits = { second: 1_000, minute: 60_000, hour: 3_600_000 } as const;

/** `N/second|minute|hour`, e.g. `10/minute`. */
export const envRate = z
  .string()
  .trim()
  .regex(/^\d+\/(second|minute|hour)$/, 'must look like N/second, N/minute or N/hour')
  .transform((value) => {
    const [count, unit] = value.split('/') as [string, keyof typeof rateUnits];
    return { max: Number(count), windowMs: rateUnits[unit] };
  })
  .refine((rate) => rate.max > 0, 'the count must be at least 1');

const byteUnits: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** A size as DuckDB writes one, e.g. `2GB` (10^9 bytes) or `1.5GiB` (2^30), of at least `min` bytes; answers bytes. */
export function envByteSize(min: number) {
  const message = `must be a size like 512MiB or 2GB (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), at least ${min / 1024 ** 2} MiB`;
  return z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)$/i, message)
    .transform((value) => {
      const [, number = '', unit = ''] = /^([\d.]+)\s*([a-z]+)$/i.exec(value) ?? [];
      return Math.floor(Number(number) * (byteUnits[unit.toLowerCase()] ?? Number.NaN));
    })
    .refine((bytes) => Number.isSafeInteger(bytes) && bytes >= min, message);
}

/** A CSP source a frame ancestor may be: `*`, `'self'`, a scheme (`https:`) or a host (`https://*.example.org:8443`). */
const FRAME_ANCESTOR =
  /^(\*|'self'|[a-z][a-z0-9+.-]*:|([a-z][a-z0-9+.-]*:\/\/)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?(\/[^\s;,'"]*)?)$/i;

/**
 * `frame-ancestors` sources, separated by spaces or commas: `'none'` alone, or sources as
 * FRAME_ANCESTOR allows. Nothing else passes, so the value cannot smuggle another directive in.
 */
export const envFrameAncestors = z
  .string()
  .transform((value) => value.split(/[\s,]+/).filter((source) => source !== ''))
  .refine((sources) => sources.length > 0, "must list sources, or be 'none'")
  .refine(
    (sources) =>
      sources.includes("'none'") ? sources.length === 1 : sources.every((source) => FRAME_ANCESTOR.test(source)),
    "must be 'none', or sources such as * 'self' https: https://example.org https://*.example.org:8443",
  );
