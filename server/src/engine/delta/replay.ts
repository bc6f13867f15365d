import type { AddAction, LogAction, MetadataAction, ProtocolAction, RemoveAction, TxnAction } from './actions.js';
import { DeltaLogCorrupt, UnsupportedTableFeature } from './errors.js';
import { decodeDataPath } from './log-files.js';

/**
 * The reconciled state of a table's log (PROTOCOL.md "Action Reconciliation"): the last protocol
 * and metaData win, the last action for a path wins (add: active, remove: tombstone), the last
 * txn per appId wins. Paths are compared percent-decoded.
 */
export class LogReplay {
  protocol: ProtocolAction | null = null;
  metadata: MetadataAction | null = null;
  /** Active files by decoded path. */
  readonly files = new Map<string, AddAction>();
  /** Removed files by decoded path (for VACUUM and checkpoints). */
  readonly tombstones = new Map<string, RemoveAction>();
  readonly transactions = new Map<string, TxnAction>();

  /** Applies a checkpoint's rows: its adds are already reconciled, its removes are tombstones. */
  applyCheckpoint(actions: readonly LogAction[]): void {
    for (const action of actions) {
      if ('add' in action) this.files.set(decodeDataPath(action.add.path), action.add);
      else if ('remove' in action) this.tombstones.set(decodeDataPath(action.remove.path), action.remove);
      else this.applyOther(action);
    }
  }

  /** Applies one commit, in the order of its actions. */
  applyCommit(actions: readonly LogAction[]): void {
    for (const action of actions) {
      if ('add' in action) {
        const path = decodeDataPath(action.add.path);
        this.tombstones.delete(path);
        this.files.set(path, action.add);
      } else if ('remove' in action) {
        const path = decodeDataPath(action.remove.path);
        this.files.delete(path);
        this.tombstones.set(path, action.remove);
      } else this.applyOther(action);
    }
  }

  private applyOther(action: LogAction): void {
    if ('protocol' in action) this.protocol = action.protocol;
    else if ('metaData' in action) this.metadata = action.metaData;
    else if ('txn' in action) this.transactions.set(action.txn.appId, action.txn);
  }

  /** The protocol and metadata, which every table version must have. */
  required(where: string): { protocol: ProtocolAction; metadata: MetadataAction } {
    if (this.protocol === null) throw new DeltaLogCorrupt(`${where} has no protocol action`);
    if (this.metadata === null) throw new DeltaLogCorrupt(`${where} has no metaData action`);
    return { protocol: this.protocol, metadata: this.metadata };
  }

  /** Refuses files this reader can't read as they are (deletion vectors), whatever the protocol says. */
  assertPlainFiles(): void {
    for (const [path, add] of this.files) {
      if (add.deletionVector !== undefined && add.deletionVector !== null) {
        throw new UnsupportedTableFeature('deletionVectors', `file ${path} has a deletion vector (deletionVectors)`);
      }
    }
  }
}
