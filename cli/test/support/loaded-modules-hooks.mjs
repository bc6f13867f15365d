// Module hooks (node:module `register`) that append every module URL the process loads to the
// file named by `initialize`'s data: lets a test see what a CLI command imports.
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
