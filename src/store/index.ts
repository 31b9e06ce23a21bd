// The store's public API (see the lead's wiring notes in each module's header).

export { StoreError, isStoreError, formatBytes, type StoreErrorCode } from './errors.ts';
export { openRunStore, type OpenedStore } from './open.ts';
export type { RunStore, PutOutcome, RecordItem } from './store.ts';
export { IdbRunStore } from './idb-store.ts';
export { MemoryRunStore } from './memory-store.ts';
export {
  DB_NAME,
  DB_VERSION,
  LEGACY_RUN_MESSAGE,
  LEGACY_KEY_PREFIX,
  type StoredRun,
  type StoredRecord,
  type StoredQuestions,
  type StoredStudy,
  type RunCounters,
} from './schema.ts';
export { manifestKey, legacyManifestKey, probeKey, runScope, type RecordKey, type RunScope } from './keys.ts';
export { orderRecords, type ImportedSource } from './records.ts';
export type { RunProgress } from './progress.ts';
export { errorOfRunFailure, runFailureOf, type RunFailure } from './run-failure.ts';
export { RunController, type AuditFn, type AuditCall, type RunRequest, type RunEvent, type RunControllerOptions } from './run-controller.ts';
export { coreAudit, coreRunRequest, type CoreAuditInput, type RunMeta } from './core-audit.ts';
export { TabLocks, InProcessLocks, ProgressChannel, auditLockName, PROGRESS_CHANNEL, type LockManagerLike, type ChannelLike, type HeldLock } from './tab-lock.ts';
export {
  WeightCache,
  WEIGHT_CACHE_NAME,
  cacheKey,
  type CachedFileRequest,
  type CachedFile,
  type CachedModel,
  type FileRef,
  type CacheStorageLike,
  type StorageManagerLike,
} from './weight-cache.ts';
export { CachedHubReader, type HubFileReader } from './cached-reader.ts';
export { exportRunJson, exportRunCsv, recordsToCsv, runFile, loadRun, definitionsCsv, CSV_COLUMNS, type LoadedRun } from './export.ts';
export { importRunJson, importLmEvalSamples, UNKNOWN_CONDITION_PREFIX, type ImportResult, type LmEvalImportOptions } from './import.ts';
export { importFile, isLmEvalSamplesName, lmEvalOptionsFor, type ImportFileOptions, type ImportSource } from './import-file.ts';
export { progressText, type ImportControl, type ImportProgress } from './import-progress.ts';
export { importInWorker } from './import-remote.ts';
export { spawnImporter } from './spawn-import.ts';
export { RUN_FILE_FORMAT, RUN_FILE_VERSION, LEGACY_RUN_FILE_VERSION, type RunFile, type LegacyRunFile, type Producer } from './run-file.ts';
