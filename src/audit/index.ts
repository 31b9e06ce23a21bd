// The audit core's public API (pure TypeScript, no DOM). The store and UI import from here.

export type * from './types';
export { AuditError, type AuditErrorCode } from './errors';

// tasks
export { loadTask, type LoadTaskOptions } from './tasks/index';
export { builtinTask } from './tasks/builtin';
export { fileTask, parseTaskFile, formatFromName, type TaskFileMapping, type TaskFileFormat } from './tasks/file';
export { hubTask, hubPreset, HUB_PRESETS, HUB_ROWS_ENDPOINT, fetchRowsPage, type FetchLike } from './tasks/hub';

// graders, prompts, conditions and keys
export { grade, extractNumeric, extractLetter, extractExact, normalizeGold, GRADER_VERSION, INVALID, type Grade } from './graders';
export { buildPrompt, renderQuestion, fewShotExamples } from './prompt';
export { conditionKey, defaultCondition, validateCondition, validateProbeSpec, probeKey, recordKey, recordKeyOf, type RecordKeyParts } from './condition';

// route spaces
export {
  defaultRoute,
  routeToString,
  parseRoute,
  routeSpaceToString,
  validateRouteSpace,
  routeError,
  inRouteSpace,
  routeSpaceSize,
  enumerateRoutes,
  sampleRoutes,
  childRoutes,
} from './routes';

// running audits
export { runAudit, auditRecords, sharedRoutes, questionRoutes, type AuditOptions, type AuditProgress, type AuditResult, type Calibration } from './run';
export { summarize, reachCurve } from './summary';
export { majorityVote, maxLogprob, chooseFixedRoute, fixedRoutePick } from './selectors';
export { silencingScan, failureSet, scanFromRecords, type SilencingScanOptions, type SilencingScanResult, type LayerRepair, type SplitHalf } from './silencing';
export { compareCheckpoints, compareRecords, QUESTION_STATES, type CheckpointComparison, type QuestionState, type CompareOptions } from './compare';
export { passAtK, wilson, mcnemar, type Interval, type McNemar } from './stats';
export * from './presets';
