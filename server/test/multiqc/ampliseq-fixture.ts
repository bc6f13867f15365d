import { readFile } from 'node:fs/promises';
import { call, type TestServer, uploadFile } from '../../../test/support/test-server.js';

/**
 * The real nf-core/ampliseq MultiQC report and its sample metadata (server/test/fixtures/multiqc),
 * as a project: a `multiqc` collection joined on `sample` to a `metadata` table, both ingested.
 */

const FIXTURES = new URL('../fixtures/multiqc/', import.meta.url);
export const REPORT = await readFile(new URL('ampliseq-2.16.0-multiqc.parquet', FIXTURES));
export const METADATA = await readFile(new URL('ampliseq-2.16.0-metadata.tsv', FIXTURES));

export const PROJECT_YAML = `
name: ampliseq
workflows:
  - name: ampliseq
    data_collections:
      - tag: multiqc
        type: multiqc
        pattern: "multiqc/multiqc_data/multiqc\\\\.parquet"
        format: parquet
      - tag: metadata
        pattern: "input/Metadata_full\\\\.tsv"
        format: tsv
joins:
  - { name: qc_samples, left: multiqc, right: metadata, on: [sample] }
`;

/** A project of the ampliseq report and its metadata, ingested; ids by tag. */
export async function ampliseqProject(server: TestServer, token: string) {
  const imported = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
    token,
    json: { yaml: PROJECT_YAML },
  });
  if (imported.status !== 201) throw new Error(imported.text);
  const projectId = imported.body.project_id;
  const workflows = await call<{ items: { workflow_id: string }[] }>(
    server,
    'GET',
    `/projects/${projectId}/workflows`,
    { token },
  );
  const workflowId = workflows.body.items[0]?.workflow_id;
  const collections = await call<{ items: { data_collection_id: string; tag: string }[] }>(
    server,
    'GET',
    `/workflows/${workflowId}/datacollections`,
    { token },
  );
  const id = (tag: string) => collections.body.items.find((item) => item.tag === tag)?.data_collection_id ?? '';
  const files = [
    { tag: 'multiqc', path: 'multiqc/multiqc_data/multiqc.parquet', content: REPORT },
    { tag: 'metadata', path: 'input/Metadata_full.tsv', content: METADATA },
  ];
  for (const file of files) {
    const status = await uploadFile(server, token, id(file.tag), {
      run: 'run1',
      path: file.path,
      content: file.content,
    });
    if (status !== 201) throw new Error(`upload of ${file.path}: ${status}`);
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: id(file.tag) },
    });
    if (upserted.status !== 200) throw new Error(upserted.text);
  }
  return { projectId, workflowId: workflowId ?? '', multiqcId: id('multiqc'), metadataId: id('metadata') };
}
