// Errors from the engine, the store and the backend as messages a person can act on.

import { isEngineError, type EngineErrorCode } from '../../engine/types';
import { isQuotaError, isStoreError, type StoreErrorCode } from '../../store/errors';

export type ErrorAction = 'reload-engine' | 'add-token' | 'retry' | 'free-storage' | 'none';

export interface UserMessage {
  title: string;
  /** The underlying message (untrusted: rendered as text). */
  detail: string;
  action: ErrorAction;
}

const ENGINE_TITLES: Record<EngineErrorCode, [string, ErrorAction]> = {
  'bad-checkpoint': ['The checkpoint files are malformed or incomplete. Check the folder or repo has config.json, tokenizer files and *.safetensors.', 'none'],
  'unsupported-architecture': ['This model architecture is not supported (ReachLab runs dense Llama, Qwen2 and Qwen3 checkpoints).', 'none'],
  'unsupported-dtype': ['This weight or engine dtype is not available here. Try dtype f32.', 'none'],
  gated: ['This model is gated: it needs a Hugging Face token with access. Accept the license on the model page, then paste a token.', 'add-token'],
  'not-found': ['Not found: check the repo id, revision and that the folder holds every file.', 'none'],
  network: ['Network unavailable: you seem to be offline. Use the built-in model or a local folder, or retry when online.', 'retry'],
  'bad-input': ['The setup is invalid.', 'none'],
  'not-loaded': ['No model is loaded yet. Load a model in Setup first.', 'none'],
  'nan-logits': ['The model produced NaN/Inf values (often fp16 overflow). Try dtype f32.', 'none'],
  'device-lost': ['GPU lost. Finished records are kept: reload the engine to resume the run.', 'reload-engine'],
  'worker-crashed': ['The engine stopped unexpectedly (often out of memory). Finished records are kept: reload the engine to resume the run.', 'reload-engine'],
  'out-of-memory': ['Out of memory. Try a smaller model, dtype q4, or fewer questions per batch.', 'none'],
  cancelled: ['Cancelled.', 'none'],
  internal: ['Internal engine error. Please report it with the details below.', 'none'],
};

const STORE_TITLES: Record<StoreErrorCode, [string, ErrorAction]> = {
  unavailable: ['Browser storage is unavailable (private window or storage disabled). Runs stay in memory until you export them.', 'none'],
  blocked: ['Storage is blocked by an older ReachLab tab. Close other ReachLab tabs, then retry.', 'retry'],
  'quota-exceeded': ['Browser storage is full. Delete old runs in the Library, then retry.', 'free-storage'],
  'insufficient-space': ['Not enough free storage for this download. Delete old runs or cached models in the Library.', 'free-storage'],
  locked: ['An audit is running in another ReachLab tab. Finish or cancel it there first.', 'none'],
  'invalid-import': ['That file is not a valid ReachLab run export.', 'none'],
  duplicate: ['This run is already in your library.', 'none'],
  legacy: ['This run was made by an earlier version of ReachLab and cannot be resumed; start the audit again.', 'none'],
  'not-found': ['Not found in the library (it may have been deleted).', 'none'],
  'bad-input': ['The store rejected this data.', 'none'],
  'download-failed': ['A weight file could not be downloaded or arrived damaged. Check the connection and retry.', 'retry'],
  internal: ['Internal storage error. Please report it with the details below.', 'none'],
};

export function toUserMessage(e: unknown): UserMessage {
  if (isEngineError(e)) {
    const [title, action] = ENGINE_TITLES[e.code] ?? ENGINE_TITLES.internal;
    return { title, detail: e.message, action };
  }
  if (isStoreError(e)) {
    const [title, action] = STORE_TITLES[e.code] ?? STORE_TITLES.internal;
    return { title, detail: e.message, action };
  }
  if (isQuotaError(e)) return { title: STORE_TITLES['quota-exceeded'][0], detail: (e as Error).message, action: 'free-storage' };
  if (e instanceof Error) return { title: 'Something went wrong.', detail: e.message, action: 'none' };
  return { title: 'Something went wrong.', detail: String(e), action: 'none' };
}
