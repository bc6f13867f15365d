import { readFileSync } from 'node:fs';

// package.json sits one level above both src/ and dist/, so this works from either.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const serviceVersion: string = manifest.version;
