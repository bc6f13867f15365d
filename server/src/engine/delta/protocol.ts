import type { MetadataAction, ProtocolAction } from './actions.js';
import { UnsupportedTableFeature } from './errors.js';
import { fieldsIn, type StructType, typesIn } from './schema.js';

/** This engine reads tables of reader version 1 and writes tables of writer version 2, no table features. */
export const READER_VERSION = 1;
export const WRITER_VERSION = 2;

/** What writer versions 3–6 imply (PROTOCOL.md "Writer Version Requirements"). */
const WRITER_VERSION_FEATURES: Record<number, string> = {
  3: 'checkConstraints',
  4: 'changeDataFeed/generatedColumns',
  5: 'columnMapping',
  6: 'identityColumns',
};

/** Refuses, before any data is read, a table this reader can't read correctly. */
export function assertReadable(protocol: ProtocolAction, metadata: MetadataAction, schema: StructType): void {
  if (protocol.minReaderVersion > READER_VERSION) {
    const features = protocol.readerFeatures ?? [];
    if (features.length > 0) {
      throw new UnsupportedTableFeature(
        features[0]!,
        `unsupported reader feature${features.length > 1 ? 's' : ''} ${features.join(', ')}: the table needs reader version ${protocol.minReaderVersion}, this reader supports version ${READER_VERSION} without table features`,
      );
    }
    const feature = protocol.minReaderVersion === 2 ? 'columnMapping' : `readerVersion${protocol.minReaderVersion}`;
    throw new UnsupportedTableFeature(
      feature,
      `unsupported reader version ${protocol.minReaderVersion}${protocol.minReaderVersion === 2 ? ' (columnMapping)' : ''}: this reader supports version ${READER_VERSION}`,
    );
  }
  const mapping = metadata.configuration?.['delta.columnMapping.mode'];
  if (mapping !== undefined && mapping !== null && mapping !== 'none') {
    throw new UnsupportedTableFeature('columnMapping', `unsupported column mapping mode ${mapping}`);
  }
  for (const field of schema.fields) {
    for (const type of typesIn(field.type)) {
      if (type === 'timestamp_ntz') {
        throw new UnsupportedTableFeature('timestampNtz', `column ${field.name} is a timestamp_ntz (timestampNtz)`);
      }
      if (type === 'variant') throw new UnsupportedTableFeature('variantType', `column ${field.name} is a variant`);
    }
  }
}

/** Refuses to write a table whose writer requirements this writer doesn't meet. */
export function assertWritable(protocol: ProtocolAction, metadata: MetadataAction, schema: StructType): void {
  assertReadable(protocol, metadata, schema);
  if (protocol.minWriterVersion > WRITER_VERSION) {
    const features = protocol.writerFeatures ?? [];
    const named =
      features.length > 0 ? features.join(', ') : (WRITER_VERSION_FEATURES[protocol.minWriterVersion] ?? 'unknown');
    throw new UnsupportedTableFeature(
      features[0] ?? WRITER_VERSION_FEATURES[protocol.minWriterVersion] ?? `writerVersion${protocol.minWriterVersion}`,
      `unsupported writer version ${protocol.minWriterVersion} (${named}): this writer supports version ${WRITER_VERSION}`,
    );
  }
  for (const field of fieldsIn(schema)) {
    if (field.metadata['delta.invariants'] !== undefined) {
      throw new UnsupportedTableFeature(
        'invariants',
        `column ${field.name} has an invariant this writer can't enforce`,
      );
    }
  }
}

export function isAppendOnly(metadata: MetadataAction): boolean {
  return metadata.configuration?.['delta.appendOnly']?.toLowerCase() === 'true';
}
