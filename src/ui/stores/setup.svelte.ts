// The Setup screen's state: model, task, condition, probes and budgets, and what follows from them
// (the probe list, the attempt estimate, validation, the permalink).

import { routeSpaceSize, routeSpaceToString } from '../../audit/routes';
import type { Condition, ProbeSpec } from '../../audit/types';
import type { EngineDtype, ExecutionProvider, LoadProgress, ModelInfo } from '../../engine/types';
import { BUILTIN_MODEL_ID, type FieldMapping, type HubModelMeta, type ModelChoice, type RunSetup, type TaskChoice, type TaskFilePreview } from '../backend';
import { attemptsOf } from '../lib/estimate';
import { encodePermalink, linkModelOf, linkTaskOf, MAX_SEED, validateCondition, type ParsedPermalink } from '../lib/permalink';
import { DEFAULT_CONDITION, PROBE_PRESETS, presetById, taskCondition, type PresetId } from '../lib/presets';

export type ModelKind = ModelChoice['kind'];
export type TaskKind = TaskChoice['kind'];

const REPO_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;

export class SetupState {
  // model
  modelKind = $state<ModelKind>('builtin');
  hubRepo = $state('');
  hubRevision = $state('main');
  hubToken = $state('');
  /** Hub (or mirror) base URL; blank means https://huggingface.co. */
  hubEndpoint = $state('');
  folderName = $state('');
  folderFiles = $state.raw<File[]>([]);
  hubMeta = $state.raw<HubModelMeta | null>(null);
  modelInfo = $state.raw<ModelInfo | null>(null);
  loadProgress = $state.raw<LoadProgress | null>(null);
  ep = $state<ExecutionProvider | 'auto'>('auto');

  // task
  taskKind = $state<TaskKind>('builtin');
  builtinTask = $state('arith-2d');
  hubPreset = $state('gsm8k');
  count = $state(20);
  /** Which questions (built-in tasks) and which few-shot examples: the built-in task's seed and
   *  the condition's fewShot.seed. 1 is the CLI's default. */
  questionSeed = $state(1);
  /** The seed of every probe spec (route draws, MCTS, samples), independent of the questions. */
  probeSeed = $state(1);
  taskFile = $state.raw<File | null>(null);
  filePreview = $state.raw<TaskFilePreview | null>(null);
  mapping = $state<FieldMapping>({ question: '', answer: '' });

  // condition (its fewShot.seed is the question seed: see runCondition)
  condition = $state<Condition>(structuredClone(DEFAULT_CONDITION));

  /** The condition the run uses: the edited one, its few-shot draws seeded by the question seed. */
  runCondition = $derived.by((): Condition => {
    const c = $state.snapshot(this.condition) as Condition;
    return { ...c, fewShot: { ...c.fewShot, seed: this.questionSeed } };
  });

  // probes: chosen presets and their budgets
  presets = $state<PresetId[]>(['random-routes', 'sampling-ceiling']);
  budgets = $state<Partial<Record<PresetId, number>>>({});

  /** Takes the chosen task's prescribed condition (template, answer format, decoding defaults). */
  applyTaskDefaults(): void {
    if (this.taskKind === 'file') return;
    const id = this.taskKind === 'hub' ? `hub:${this.hubPreset}` : `builtin:${this.builtinTask}`;
    this.condition = taskCondition(id, this.condition.engineDtype);
  }

  /** Layers of the chosen model, once loaded (or announced by the Hub API). */
  numLayers = $derived(this.modelInfo?.numLayers ?? this.hubMeta?.numLayers ?? null);

  modelChoice = $derived.by((): ModelChoice | null => {
    if (this.modelKind === 'builtin') return { kind: 'builtin', id: BUILTIN_MODEL_ID };
    if (this.modelKind === 'hub') {
      if (!REPO_RE.test(this.hubRepo.trim())) return null;
      const token = this.hubToken.trim();
      const endpoint = this.hubEndpoint.trim().replace(/\/+$/, '');
      return { kind: 'hub', repo: this.hubRepo.trim(), revision: this.hubRevision.trim() || 'main', ...(token ? { token } : {}), ...(endpoint ? { endpoint } : {}) };
    }
    return this.folderFiles.length ? { kind: 'files', name: this.folderName || 'folder', files: this.folderFiles } : null;
  });

  taskChoice = $derived.by((): TaskChoice | null => {
    if (this.taskKind === 'builtin') return { kind: 'builtin', id: this.builtinTask, count: this.count, seed: this.questionSeed };
    if (this.taskKind === 'hub') return { kind: 'hub', preset: this.hubPreset, count: this.count };
    if (!this.taskFile || !this.mapping.question || !this.mapping.answer) return null;
    return { kind: 'file', file: this.taskFile, mapping: { ...this.mapping }, answerFormat: this.condition.answerFormat, count: this.count };
  });

  probes = $derived.by((): ProbeSpec[] | null => {
    const L = this.numLayers;
    if (L === null) return null;
    return [{ probe: 'deployment' }, ...this.presets.map((id) => this.withSeedAndBudget(id, presetById(id).probe(L)))];
  });

  attempts = $derived(this.probes && Number.isInteger(this.count) && this.count >= 0 ? attemptsOf(this.count, this.probes) : null);

  /** What stops the run from starting, in words. */
  problems = $derived.by((): string[] => {
    const out: string[] = [];
    if (this.modelKind === 'hub' && !REPO_RE.test(this.hubRepo.trim())) out.push('Enter a Hub repo id like owner/name.');
    if (this.modelKind === 'files' && this.folderFiles.length === 0) out.push('Pick or drop a model folder.');
    if (this.numLayers === null) out.push('Load the model first (its layer count sets the route spaces).');
    if (!Number.isInteger(this.count) || this.count < 1 || this.count > 100_000) out.push('Questions must be a whole number from 1 to 100000.');
    for (const [name, v] of [['Question seed', this.questionSeed], ['Probe seed', this.probeSeed]] as const) {
      if (!Number.isInteger(v) || v < 0 || v > MAX_SEED) out.push(`${name} must be a whole number from 0 to ${MAX_SEED}.`);
    }
    if (this.taskKind === 'file') {
      if (!this.taskFile) out.push('Choose a task file.');
      else if (!this.mapping.question || !this.mapping.answer) out.push('Map the question and answer columns of the task file.');
    }
    const checked = validateCondition(this.runCondition);
    if (Array.isArray(checked)) out.push(...checked.map((e) => `Condition: ${e}.`));
    for (const id of this.presets) {
      const b = this.budgets[id];
      if (b !== undefined && (!Number.isInteger(b) || b < 1)) out.push(`${presetById(id).label}: budget must be a whole number ≥ 1.`);
    }
    for (const p of this.probes ?? []) {
      // distinct routes cannot outnumber the route space
      if ((p.probe === 'random-routes' || p.probe === 'mcts-routes') && Number.isInteger(p.budget) && BigInt(p.budget) > routeSpaceSize(p.space)) {
        out.push(`${p.probe}: budget ${p.budget} exceeds the ${routeSpaceSize(p.space)} distinct routes of ${routeSpaceToString(p.space)}.`);
      }
    }
    return out;
  });

  permalink = $derived(
    encodePermalink({
      model: this.modelChoice ? linkModelOf(this.modelChoice) : undefined,
      task: this.taskChoice ? linkTaskOf(this.taskChoice) : undefined,
      condition: this.runCondition,
      questionSeed: this.questionSeed,
      probeSeed: this.probeSeed,
    }),
  );

  setup(): RunSetup {
    if (this.problems.length) throw new Error(`setup incomplete: ${this.problems.join(' ')}`);
    return {
      model: this.modelChoice!,
      task: this.taskChoice!,
      condition: this.runCondition,
      questionSeed: this.questionSeed,
      probes: this.probes!,
      load: { ep: this.ep, dtype: this.condition.engineDtype as EngineDtype },
    };
  }

  togglePreset(id: PresetId, on: boolean): void {
    const has = this.presets.includes(id);
    if (on && !has) this.presets = PROBE_PRESETS.map((p) => p.id).filter((x) => x === id || this.presets.includes(x));
    if (!on && has) this.presets = this.presets.filter((x) => x !== id);
  }

  /** Apply a protocol preset: enable its probe and, when it prescribes one, its condition. */
  applyProtocol(id: PresetId): void {
    const p = presetById(id);
    this.togglePreset(id, true);
    if (p.condition) this.condition = structuredClone(p.condition);
  }

  budgetOf(id: PresetId): number | null {
    const preset = presetById(id);
    if (preset.nominalBudget === undefined) return null;
    if (this.budgets[id] !== undefined) return this.budgets[id];
    // before a model is loaded its route space is unknown: the protocol's own budget
    const spec = this.numLayers === null ? null : preset.probe(this.numLayers);
    return spec && 'budget' in spec ? spec.budget : preset.nominalBudget;
  }

  /** Counts changes of the model choice: a load that settles under an older count is stale. */
  modelEpoch = 0;

  setModelKind(kind: ModelKind): void {
    this.modelKind = kind;
    this.invalidateModel();
  }

  /** A model finished loading: show it, and take the dtype it really computes in (f16 runs as
   *  f32 on a WebGPU adapter without shader-f16), so the audit's condition says what ran. */
  modelLoaded(info: ModelInfo): void {
    this.modelInfo = info;
    this.condition.engineDtype = info.dtype;
  }

  /** A model field changed: what was loaded no longer describes the choice. */
  invalidateModel(): void {
    this.modelInfo = null;
    this.hubMeta = null;
    this.modelEpoch++;
  }

  /** Adopt what a permalink carries; the returned list names what it could not apply. */
  applyPermalink(link: ParsedPermalink): string[] {
    if (link.model?.kind === 'builtin') this.setModelKind('builtin');
    if (link.model?.kind === 'hub') {
      this.setModelKind('hub');
      this.hubRepo = link.model.repo;
      this.hubRevision = link.model.revision;
    }
    if (link.task?.kind === 'builtin') {
      this.taskKind = 'builtin';
      this.builtinTask = link.task.id;
      this.count = link.task.count;
    }
    if (link.task?.kind === 'hub') {
      this.taskKind = 'hub';
      this.hubPreset = link.task.preset;
      this.count = link.task.count;
    }
    if (link.condition) this.condition = link.condition;
    // links written before the question seed had its own field carried it in the built-in task
    const questionSeed = link.questionSeed ?? (link.task?.kind === 'builtin' ? link.task.seed : undefined);
    if (questionSeed !== undefined) this.questionSeed = questionSeed;
    if (link.probeSeed !== undefined) this.probeSeed = link.probeSeed;
    return link.errors;
  }

  private withSeedAndBudget(id: PresetId, spec: ProbeSpec): ProbeSpec {
    if (!('seed' in spec)) return spec;
    const b = this.budgets[id];
    return { ...spec, seed: this.probeSeed, ...(b === undefined ? {} : { budget: b }) };
  }
}
