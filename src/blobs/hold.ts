/** Hashes a write has in hand but not yet recorded in any table (BlobCollector.hold); `release` when it committed or failed. */
export interface BlobHold {
  add(hash: string): void;
  /**
   * Call before asking the remote store whether the added blobs are there:
   * makes the holds visible to every node's collector, and waits out any
   * deletion of them already under way (the answer then is "gone", and the
   * write puts the bytes back).
   */
  secure(): Promise<void>;
  release(): Promise<void>;
}
