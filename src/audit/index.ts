// The audit core's public API (pure TypeScript, no DOM). The store and UI import from here.

export type * from './types';
export { AuditError, type AuditErrorCode } from './errors';

// tasks
export { loadTask, type LoadTaskOptions } from './tasks/index';
export { builtinTask } from './tasks/builtin';
export { fileTask, parseTaskFile, formatFromName, type TaskFileMapping, type TaskFileFormat } from './tasks/file';
export { hubTask, hubPreset, HUB_PRESETS, HUB_ROWS_ENDPOINT, fetchRowsPage, type FetchLike } from './tasks/hub';

// graders, prompts, conditions and keys
export { grade, gradeOptions, normalizeGold, INVALID, type Grade } from './graders';
export { gradeCases, type CaseResult } from './grade-cases';
export { FORMATS, FORMAT_NAMES, formatOf, graderVersionOf, gradedNow, answerKeyOf, isAnswerFormat } from './formats/registry';
export { buildPrompt, renderQuestion, fewShotExamples } from './prompt';
export {
  conditionKey,
  defaultCondition,
  validateCondition,
  probeKey,
  recordKey,
  recordKeyOf,
  runKey,
  bindFewShotPool,
  fewShotPoolHash,
  type RecordKeyParts,
  type RunKeyParts,
  type QuestionIdentity,
} from './condition';
export { questionIdentities, docHash } from './attempts';

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
} from './routes';

// running audits
export { runAudit, auditRecords, type AuditOptions, type AuditResult, type Calibration } from './run';
export { makeRecord, recordOutcome, type RecordInput } from './record';

// probes: one file each, listed in the registry
export {
  PROBES,
  PROBE_NAMES,
  DEPLOYMENT,
  INTERVENTION,
  probeOf,
  isProbeName,
  roleOf,
  isDeployment,
  isReach,
  isIntervention,
  titleOf,
  styleOf,
  checkProbeSpec,
  checkProbeSpecV1,
  validateProbeSpec,
  bindProbes,
  withBaselines,
  baselinesOf,
  drawsRoutes,
  takesSpace,
  UNIFORM_BASELINE,
  STANDALONE_REACH,
  probeSpecOf,
  SETUP_PRESETS,
  routeSpaceOfSpec,
  seedOfSpec,
  presetOfSpec,
  silencedLayers,
  reseeded,
} from './probes/registry';
export type { Probe, ProbeRole, ProbeSession, Ask, ProbeContext, SetupPreset } from './probes/probe';
export { sharedRoutes, drawCount, MAX_BUDGET } from './probes/route-draws';
export { questionRoutes } from './probes/random-routes';
export { summarize, reachCurve } from './summary';
export { COVER_TAU, covered } from './metrics/cover';
export { METRICS, metricValue } from './metrics/registry';
export { decoyOf, decoyControl, decoyFields, ceilingDecoy, NO_DECOY, type DecoyControl, type DecoyFields } from './decoy';
export { majorityVote, maxLogprob, chooseFixedRoute, fixedRoutePick, SELECTORS, SELECTOR_NAMES, READ_TIME_SELECTORS, calibrates, selectorsFor } from './selectors';
export { silencingScan, failureSet, scanFromRecords, scanRole, silencingEffect, type ScanInput, type SilencingScanOptions, type SilencingScanResult, type SilencingIdentification, type SilencingEvaluation, type LayerRepair } from './silencing';
export { meanMlpAttribution, type LayerAttribution } from './silencing-attribution';
export { compareCheckpoints, compareRecords, compareProbes, conditionDiff, guidanceComparisons, questionState, reachedBy, type GuidanceComparison, QUESTION_STATES, type CheckpointComparison, type ProbeComparison, type QuestionState, type StateOptions, type CompareOptions } from './compare';
export { passAtK, wilson, mcnemar, pairedDifference, formatP, holm, retainedGain, retainedGainEstimate, RETAINED_GAIN_BOOTSTRAP, type Interval, type McNemar, type PairedDifference, type RetainedGainEstimate } from './stats';
export * from './presets';

// setting up audits and studies
export { auditCondition, parseTemplateVars, taskLoadOptions, type ConditionChoice, type QuestionChoice } from './setup';
export { DEFAULT_PROBE_CHOICE, PROBE_SETTINGS, probeChoice, settingOf, intBounds, flagOf, settingsUsage, type ProbeChoice, type SettingName } from './probes/choice';
export { ROUTE_SPACES, SPACE_NAMES, routeSpaceOf, routeSpaceEntry, routeSpaceInWords, type SpaceName } from './probes/route-spaces';
export { boundsText, fits, type Setting } from './probes/settings';
