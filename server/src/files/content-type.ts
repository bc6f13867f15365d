const byExtension: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  jsonl: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
  html: 'text/html',
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  yaml: 'application/yaml',
  yml: 'application/yaml',
};

/** The content type we serve a file with: from its extension, never from what an uploader claimed. */
export function contentTypeOf(path: string): string {
  const extension = path.split('.').pop()?.toLowerCase() ?? '';
  return byExtension[extension] ?? 'application/octet-stream';
}
