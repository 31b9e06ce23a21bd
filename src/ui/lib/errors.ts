// Errors from the engine, the audit core, the store and the backend as messages a person can act on:
// the headline says what failed and why (the error's own words), the hint what to do next, and the
// action names the button that does it.

import { AuditError } from '../../audit/errors';
import { isEngineError, type EngineErrorCode } from '../../engine/types';
import { isQuotaError, isStoreError, type StoreErrorCode } from '../../store/errors';

export type ErrorAction = 'reload-engine' | 'add-token' | 'retry' | 'free-storage' | 'choose-file' | 'choose-folder' | 'open-library' | 'none';

/** What the person was doing when it failed: it names the headline ("The model did not load: …"). */
export type Doing = 'load-model' | 'load-folder' | 'check-hub' | 'read-task-file' | 'start-run' | 'run' | 'import' | 'library' | 'render' | 'study' | 'app';

export interface UserMessage {
  /** What failed and why, in the error's own words (untrusted: rendered as text). */
  title: string;
  /** The next step, in words. */
  hint: string;
  action: ErrorAction;
}

const DOING: Record<Doing, string> = {
  'load-model': 'The model did not load',
  'load-folder': 'The model did not load',
  'check-hub': 'The Hub check failed',
  'read-task-file': 'This task file cannot be used',
  'start-run': 'The audit did not start',
  run: 'The audit stopped',
  import: 'Not imported',
  library: 'The library could not do that',
  render: 'This screen could not be drawn',
  study: 'The study stopped',
  app: 'Something failed',
};

const ENGINE: Record<EngineErrorCode, [string, ErrorAction]> = {
  'bad-checkpoint': ['A model folder or repo needs config.json, tokenizer files and *.safetensors weights that match them.', 'none'],
  'unsupported-architecture': ['ReachLab runs dense Llama, Qwen2 and Qwen3 checkpoints: pick one of those.', 'none'],
  'unsupported-dtype': ['Choose another dtype (f32 runs on every engine) or the engine the message names, and load again.', 'none'],
  gated: ['Accept the licence on the model page on huggingface.co, then paste a token that has access.', 'add-token'],
  'not-found': ['Check that every file is there (for a Hub repo: its name and revision).', 'none'],
  network: ['Check the connection and retry, or use the built-in model or a local folder, which work offline.', 'retry'],
  timeout: ['The server is slow or the connection stalled: retry, or use the built-in model or a local folder, which work offline.', 'retry'],
  integrity: ['The file arrived different from what the Hub states: retry; if it happens again, the repo or a mirror serves damaged files.', 'retry'],
  'bad-input': ['Correct the setup and try again.', 'none'],
  'not-loaded': ['Load a model on the Setup screen first.', 'none'],
  'nan-logits': ['With f16 this often is overflow: choose dtype f32 and start again. In f32 the checkpoint\'s weights at the layer named hold NaN or Inf: use another copy of the model.', 'none'],
  'device-lost': ['Finished records are kept: reload the engine to go on where the run stopped.', 'reload-engine'],
  'worker-crashed': ['Often the browser ran out of memory. Finished records are kept: reload the engine to go on where the run stopped.', 'reload-engine'],
  'out-of-memory': ['Try a smaller model, dtype q4, or fewer questions.', 'none'],
  cancelled: ['Start it again when you are ready.', 'none'],
  internal: ['This is a bug in ReachLab: please report it with these words.', 'none'],
};

const STORE: Record<StoreErrorCode, [string, ErrorAction]> = {
  unavailable: ['Runs stay in memory until you export them from the Library (private window or storage disabled).', 'none'],
  blocked: ['Close the other ReachLab tabs, then retry.', 'retry'],
  'quota-exceeded': ['Delete old runs or cached models in the Library, then retry.', 'free-storage'],
  'insufficient-space': ['Delete old runs or cached models in the Library, or free disk space.', 'free-storage'],
  locked: ['Finish or pause it in the other tab; its progress shows in the Library here.', 'open-library'],
  'invalid-import': ['Choose a file exported by ReachLab (Export in the Library) or an lm-evaluation-harness samples_*.jsonl file.', 'choose-file'],
  duplicate: ['Nothing was imported: the stored run is listed in the Library.', 'none'],
  legacy: ['Start the audit again from Setup: runs of earlier versions are kept for reading only.', 'none'],
  'not-found': ['It may have been deleted in another tab: the Library shows what is stored.', 'open-library'],
  'bad-input': ['This is a bug in ReachLab: please report it with these words.', 'none'],
  'download-failed': ['Check the connection and retry.', 'retry'],
  internal: ['This is a bug in ReachLab: please report it with these words.', 'none'],
};

const AUDIT: Record<AuditError['code'], [string, ErrorAction]> = {
  'bad-input': ['Correct the setup and try again.', 'none'],
  'bad-task': ['Fix the file, or choose another one.', 'choose-file'],
  offline: ['Check the connection and retry, or use a built-in task or a file, which work offline.', 'retry'],
  http: ['Retry later, or use a built-in task or a file.', 'retry'],
  cancelled: ['Start it again when you are ready.', 'none'],
};

const isAuditError = (e: unknown): e is AuditError => e instanceof AuditError;

const FOLDER_PROBLEMS = new Set<EngineErrorCode>(['not-found', 'bad-checkpoint', 'bad-input', 'unsupported-architecture']);

/** The message of any error, with a headline naming what was being done. */
export function toUserMessage(e: unknown, doing: Doing = 'app'): UserMessage {
  const cause = e instanceof Error ? e.message : String(e);
  const title = `${DOING[doing]}: ${cause.replace(/\.$/, '')}.`;
  const [hint, action] = isEngineError(e)
    ? (ENGINE[e.code] ?? ENGINE.internal)
    : isStoreError(e)
      ? (STORE[e.code] ?? STORE.internal)
      : isAuditError(e)
        ? AUDIT[e.code]
        : isQuotaError(e)
          ? STORE['quota-exceeded']
          : (['If it happens again, please report it with these words.', 'none'] as const);
  // a file problem is solved by another file only where a file was being chosen
  const fileChoice = doing === 'read-task-file' || doing === 'import';
  // a picked folder that is not a checkpoint: another folder
  if (doing === 'load-folder' && isEngineError(e) && FOLDER_PROBLEMS.has(e.code)) return { title, hint, action: 'choose-folder' };
  return { title, hint, action: action === 'choose-file' && !fileChoice ? 'none' : action };
}
