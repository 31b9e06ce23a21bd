// The one error type the store throws. `code` names what went wrong so the UI can say it plainly
// (and keep the audit running in memory when IndexedDB cannot be used).

export type StoreErrorCode =
  | 'unavailable' // IndexedDB missing or refusing to open (private window, disabled storage)
  | 'blocked' // an older connection in another tab blocks the upgrade
  | 'quota-exceeded' // the origin's storage quota is full
  | 'insufficient-space' // a download would not fit in the free space
  | 'locked' // the audit is running in another tab
  | 'invalid-import' // an imported file does not validate
  | 'duplicate' // an imported run is already in the library
  | 'legacy' // a run made by an earlier version cannot be resumed or reused
  | 'not-found' // a run or a cached file is missing
  | 'bad-input' // a manifest, record or option the store cannot take
  | 'download-failed' // a weight file could not be fetched or arrived damaged
  | 'internal';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

export function isStoreError(e: unknown): e is StoreError {
  return e instanceof Error && e.name === 'StoreError' && typeof (e as StoreError).code === 'string';
}

/** True for the DOMException browsers (and fake-indexeddb) raise when the quota is full. */
export function isQuotaError(e: unknown): boolean {
  if (!(e instanceof Error) && !(typeof e === 'object' && e !== null && 'name' in e)) return false;
  const name = (e as { name?: unknown }).name;
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
}

/** Maps a raw IndexedDB/DOM failure to a StoreError with a message a user can act on. */
export function toStoreError(e: unknown, doing: string): StoreError {
  if (isStoreError(e)) return e;
  if (isQuotaError(e)) {
    return new StoreError(
      'quota-exceeded',
      `Browser storage is full while ${doing}. Free space (delete cached models or old runs) and try again.`,
      { cause: e },
    );
  }
  const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new StoreError('internal', `Storage failed while ${doing} (${detail})`, { cause: e });
}

/** "1.2 GB" style sizes for messages. */
export function formatBytes(n: number): string {
  if (n < 1e3) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}
