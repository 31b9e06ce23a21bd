// Errors from the engine, the store and the backend as messages a person can act on.

import { isEngineError, type EngineErrorCode } from '../../engine/types';

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
  'unsupported-dtype': ['This weight or engine dtype is not available here. Try dtype f32 or q4.', 'none'],
  gated: ['This model is gated: it needs a Hugging Face token with access. Accept the license on the model page, then paste a token.', 'add-token'],
  'not-found': ['Not found: check the repo id, revision and that the folder holds every file.', 'none'],
  network: ['Network unavailable: you seem to be offline. Use the built-in model or a local folder, or retry when online.', 'retry'],
  'bad-input': ['The setup is invalid.', 'none'],
  'not-loaded': ['No model is loaded yet. Load a model in Setup first.', 'none'],
  'nan-logits': ['The model produced NaN/Inf values (often fp16 overflow). Try dtype f32.', 'none'],
  'device-lost': ['GPU lost; reload the engine.', 'reload-engine'],
  'out-of-memory': ['Out of memory. Try a smaller model, dtype q4, or fewer questions per batch.', 'none'],
  cancelled: ['Cancelled.', 'none'],
  internal: ['Internal engine error. Please report it with the details below.', 'none'],
};

const STORE_TITLES: Record<string, [string, ErrorAction]> = {
  quota: ['Browser storage is full. Delete old runs in the Library, then retry.', 'free-storage'],
  'not-found': ['That run is not in the library (it may have been deleted).', 'none'],
  'bad-file': ['That file is not a ReachLab run export.', 'none'],
  blocked: ['Storage is busy in another tab. Close other ReachLab tabs and retry.', 'retry'],
};

export function toUserMessage(e: unknown): UserMessage {
  if (isEngineError(e)) {
    const [title, action] = ENGINE_TITLES[e.code] ?? ENGINE_TITLES.internal;
    return { title, detail: e.message, action };
  }
  if (e instanceof Error && e.name === 'StoreError' && typeof (e as { code?: unknown }).code === 'string') {
    const [title, action] = STORE_TITLES[(e as { code: string }).code] ?? ['Storage error.', 'retry'];
    return { title, detail: e.message, action };
  }
  if (e instanceof Error && e.name === 'QuotaExceededError') return { title: STORE_TITLES.quota[0], detail: e.message, action: 'free-storage' };
  if (e instanceof Error) return { title: 'Something went wrong.', detail: e.message, action: 'none' };
  return { title: 'Something went wrong.', detail: String(e), action: 'none' };
}
