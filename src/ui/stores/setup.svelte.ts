// The Setup screen's state: model, task, condition, probes and budgets, and what follows from them
// (the probe list, the attempt estimate, validation, the permalink).

import { intBounds, probeOf, reseeded, routeSpaceInWords, routeSpaceOfSpec, withBaselines } from '../../audit';
import { boxedConditionWarning, colaOverrides, fileTaskOf, probeConflicts, runProbes, untrainedTaskWarning } from '../../audit/run-definition';
import { routeSpaceSize } from '../../audit/routes';
import { DECODE_RULE, DEFAULT_TEMPLATE_VARS } from '../../audit/condition';
import { MAX_FEW_SHOT, MAX_NEW_TOKENS, MAX_TEMPERATURE } from '../../audit/condition-schema';
import { graderVersionOf, isAnswerFormat, scoringFields } from '../../audit/formats/registry';
import { recipeOf } from '../../audit/recipes';
import type { Condition, ProbeSpec } from '../../audit/types';
import { FIELD_NAMES } from '../../audit/tasks/file';
import { taskEntry, taskRows } from '../../audit/tasks/registry';
import { rowsRead } from './task-rows.svelte';
import { answerStyleWarning } from '../../audit/tasks/file-answers';
import type { EngineDtype, ExecutionProvider, LoadProgress, ModelInfo } from '../../engine/types';
import type { BuiltinModelId } from '../../audit/builtin-models';
import { BUILTIN_MODEL_ID, type FieldMapping, type HubModelMeta, type ModelChoice, type RunSetup, type TaskChoice, type TaskFilePreview } from '../backend';
import { attemptsOf } from '../lib/estimate';
import { encodePermalink, linkModelOf, linkTaskOf, MAX_QUESTIONS, MAX_SEED, validateCondition, type ParsedPermalink } from '../lib/permalink';
import { DEFAULT_CONDITION, PROBE_PRESETS, presetById, taskCondition, type PresetId } from '../lib/presets';
import { budgetProblem, numberProblem, wholeNumberProblem } from '../lib/validate';
import type { UserMessage } from '../lib/errors';

export type ModelKind = ModelChoice['kind'];
export type TaskKind = TaskChoice['kind'];

/** Layers a preset's spec is built for when only its probe matters (the conflict check). */
const CONFLICT_LAYERS = 12;

const REPO_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;

export class SetupState {
  // model
  modelKind = $state<ModelKind>('builtin');
  /** Which built-in model (when modelKind is 'builtin'). */
  builtinId = $state<BuiltinModelId>(BUILTIN_MODEL_ID);
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
  /** The model load the page starts on opening has settled (or none was started). */
  firstLoadSettled = $state(false);
  ep = $state<ExecutionProvider | 'auto'>('auto');

  // task
  taskKind = $state<TaskKind>('builtin');
  builtinTask = $state('arith-2d');
  hubPreset = $state('gsm8k');
  count = $state(20);
  /** Which questions (built-in tasks) and which few-shot examples: the built-in task's seed and
   *  the condition's fewShot.seed. 1 is the CLI's default. */
  questionSeed = $state(1);
  /** Reuse records imported from files in this audit (Setup's "include imported records"). */
  includeImported = $state(false);
  /** The seed of every probe spec (route draws, MCTS, samples), independent of the questions. */
  probeSeed = $state(1);
  taskFile = $state.raw<File | null>(null);
  filePreview = $state.raw<TaskFilePreview | null>(null);
  mapping = $state<FieldMapping>({ question: '', answer: '' });

  // condition (its fewShot.seed is the question seed: see runCondition)
  condition = $state<Condition>(structuredClone(DEFAULT_CONDITION));

  /** The condition the run uses: the edited one, its few-shot draws seeded by the question seed,
   *  the decode rule of now, and template variables exactly when it applies the chat template. */
  runCondition = $derived.by((): Condition => {
    const { templateVars, ...c } = $state.snapshot(this.condition) as Condition;
    return {
      ...c,
      decodeRule: DECODE_RULE,
      ...(c.chatTemplate ? { templateVars: { ...DEFAULT_TEMPLATE_VARS, ...templateVars } } : {}),
      fewShot: { ...c.fewShot, seed: this.questionSeed },
    };
  });

  // probes: chosen presets and their budgets
  presets = $state<PresetId[]>(['uniform-routes', 'sampling-ceiling']);
  budgets = $state<Partial<Record<PresetId, number>>>({});

  /** The chosen built-in or Hub task's id ("builtin:arith-2d", "hub:gsm8k"); null for a file. */
  private get taskId(): string | null {
    return this.taskKind === 'file' ? null : this.taskKind === 'hub' ? `hub:${this.hubPreset}` : `builtin:${this.builtinTask}`;
  }

  /** Takes the chosen task's prescribed condition (template, answer format, decoding defaults). */
  applyTaskDefaults(): void {
    if (this.taskId !== null) this.condition = taskCondition(this.taskId, this.condition.engineDtype);
  }

  /** Why the model did not load or check (cleared when the model choice changes). */
  modelError = $state.raw<UserMessage | null>(null);
  /** Why the task file cannot be used. */
  taskError = $state.raw<UserMessage | null>(null);

  /** Layers of the chosen model, once loaded (or announced by the Hub API). */
  numLayers = $derived(this.modelInfo?.numLayers ?? this.hubMeta?.numLayers ?? null);

  modelChoice = $derived.by((): ModelChoice | null => {
    if (this.modelKind === 'builtin') return { kind: 'builtin', id: this.builtinId };
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

  /** Chosen presets that cannot run together, in words ("CoLa MCTS and Program-selection MCTS both
   *  run mcts-routes; choose one"). A preset's probe does not depend on the model's layers. */
  probeConflicts = $derived(probeConflicts(this.presets.map((id) => ({ label: presetById(id).short, spec: presetById(id).spec(this.numLayers ?? CONFLICT_LAYERS) }))));

  probes = $derived.by((): ProbeSpec[] | null => {
    const L = this.numLayers;
    if (L === null || this.probeConflicts.length) return null;
    // the run's probe list as the CLI and studies make it; an MCTS preset brings its depth-matched
    // random baseline (same budget and seed)
    return withBaselines(runProbes(this.presets.map((id) => this.withSeedAndBudget(id, presetById(id).spec(L)))));
  });

  /** A warning when the built-in model is given a task it was not trained on (null otherwise); a
   *  file's task is the one its first rows' questions are written as. */
  untrainedWarning = $derived.by((): string | null => {
    if (this.modelKind !== 'builtin') return null;
    const column = this.mapping.question;
    const fileTask = () => fileTaskOf(column && this.filePreview ? this.filePreview.rows.map((r) => String(r[column] ?? '')) : []);
    const task = this.taskKind === 'builtin' ? this.builtinTask : this.taskKind === 'hub' ? `hub:${this.hubPreset}` : fileTask();
    return untrainedTaskWarning(this.builtinId, task);
  });

  /** A warning naming the condition fields to change when a task file's answers are prose or
   *  LaTeX and the condition is set for short answers (null otherwise). */
  fileAnswerWarning = $derived.by((): string | null => {
    const column = this.mapping.answer;
    if (this.taskKind !== 'file' || !column || !this.filePreview) return null;
    return answerStyleWarning(this.filePreview.rows.map((r) => String(r[column] ?? '')), this.condition);
  });

  /** A warning when the condition leaves the built-in model nothing to grade (null otherwise). */
  conditionWarning = $derived(this.modelKind === 'builtin' ? boxedConditionWarning(this.builtinId, this.condition) : null);

  /** Back to the chosen task's default condition (a file: the default audit's), keeping the dtype. */
  resetCondition(): void {
    const dtype = this.condition.engineDtype;
    const format = this.condition.answerFormat;
    this.condition = this.taskId !== null ? taskCondition(this.taskId, dtype) : { ...structuredClone(DEFAULT_CONDITION), answerFormat: format, graderVersion: graderVersionOf(format), engineDtype: dtype };
  }

  /** Another answer format: its own grader version and scoring (a log-likelihood mode only where
   *  the format has one), so the condition stays one this app can run. */
  setAnswerFormat(name: string): void {
    if (!isAnswerFormat(name)) return;
    const { mcMode, ...c } = this.condition;
    this.condition = { ...c, answerFormat: name, graderVersion: graderVersionOf(name), ...scoringFields(name, mcMode) };
  }

  /** A math recipe's condition (audit/recipes.ts) over the edited one: its prompt, chat template,
   *  decoding, tokens, stops, answer format and answer line; the rest (few-shot, dtype) kept. */
  applyRecipe(name: string): void {
    const { answerLine: _a, requireBoxed: _b, mcMode: _m, ...c } = this.condition;
    this.condition = { ...c, ...structuredClone(recipeOf(name).overrides) };
  }

  /** The chosen Hub preset's test questions: the count a load read, else the preset's declared one. */
  hubRows = $derived.by(() => {
    const entry = taskEntry(`hub:${this.hubPreset}`);
    return entry && taskRows(entry, rowsRead(entry.ref));
  });

  /** The most questions the chosen task holds (a file's rows once read). */
  maxQuestions = $derived(
    this.taskKind === 'hub' ? this.hubRows ?? MAX_QUESTIONS : this.taskKind === 'file' ? (this.filePreview?.total ?? MAX_QUESTIONS) : MAX_QUESTIONS,
  );

  /** What is wrong with the numbers and text typed in, in the form's words (the model aside). */
  inputProblems = $derived.by((): string[] => {
    const out: (string | null)[] = [
      wholeNumberProblem('Questions', this.count, 1, this.maxQuestions),
      wholeNumberProblem('Question seed', this.questionSeed, 0, MAX_SEED),
      wholeNumberProblem('Probe seed', this.probeSeed, intBounds('seed').min, MAX_SEED),
      ...this.conditionProblems(),
    ];
    for (const id of this.presets) {
      const b = this.budgetOf(id);
      if (b === null) continue;
      const drawn = this.numLayers === null ? null : routeSpaceOfSpec(presetById(id).spec(this.numLayers));
      const space = drawn && { size: routeSpaceSize(drawn), numLayers: drawn.numLayers, words: routeSpaceInWords(drawn) };
      out.push(budgetProblem(presetById(id).short, b, space));
    }
    return out.filter((p): p is string => p !== null);
  });

  /** Attempts the run will make; null until the model is loaded and while a field is invalid. */
  attempts = $derived(this.probes && this.inputProblems.length === 0 ? attemptsOf(this.count, this.probes) : null);

  /** What stops the run from starting, in words. */
  problems = $derived.by((): string[] => {
    const out: string[] = [];
    if (this.modelKind === 'hub' && !REPO_RE.test(this.hubRepo.trim())) out.push('Enter a Hub repo id like owner/name (for example Qwen/Qwen2.5-0.5B).');
    if (this.modelKind === 'files' && this.folderFiles.length === 0) out.push('Choose or drop a model folder.');
    if (this.numLayers === null) out.push('Load the model first: its number of layers decides which routes the probes can take.');
    if (this.taskKind === 'file') {
      if (!this.taskFile) out.push('Choose a task file.');
      else if (this.filePreview && !this.mapping.question) out.push('Choose the column of the task file that holds the question.');
      else if (this.filePreview && !this.mapping.answer) out.push(`Choose the column of the task file that holds the gold answer (none is named like ${FIELD_NAMES.answer.join(', ')}).`);
      else if (!this.filePreview) out.push('The task file could not be read: choose another one.');
    }
    return [...out, ...this.probeConflicts, ...this.inputProblems];
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
      includeImported: this.includeImported,
    };
  }

  togglePreset(id: PresetId, on: boolean): void {
    const has = this.presets.includes(id);
    if (on && !has) this.presets = PROBE_PRESETS.map((p) => p.id).filter((x) => x === id || this.presets.includes(x));
    if (!on && has) this.presets = this.presets.filter((x) => x !== id);
  }

  /** Apply a protocol preset: enable its probe and, when it prescribes CoLa's condition, that
   *  condition for the chosen task, as the CLI's --boxed sets it (a task file: over its current
   *  condition, a template that already asks for the box kept as it is). */
  applyProtocol(id: PresetId): void {
    this.togglePreset(id, true);
    if (!presetById(id).boxed) return;
    const c = this.condition;
    if (this.taskId !== null) this.condition = taskCondition(this.taskId, c.engineDtype, true);
    else this.condition = { ...c, ...colaOverrides(c.promptTemplate), ...(c.requireBoxed ? { promptTemplate: c.promptTemplate } : {}) };
  }

  budgetOf(id: PresetId): number | null {
    const preset = presetById(id);
    if (preset.nominalBudget === undefined) return null;
    if (this.budgets[id] !== undefined) return this.budgets[id];
    // before a model is loaded its route space is unknown: the protocol's own budget
    const spec = this.numLayers === null ? null : preset.spec(this.numLayers);
    return spec ? probeOf(spec).budget(spec) : preset.nominalBudget;
  }

  /** Counts changes of the model choice: a load that settles under an older count is stale. */
  modelEpoch = 0;

  setModelKind(kind: ModelKind): void {
    this.modelKind = kind;
    this.invalidateModel();
  }

  /** Choose a built-in model (and the built-in source). */
  chooseBuiltin(id: BuiltinModelId): void {
    this.builtinId = id;
    this.setModelKind('builtin');
  }

  /** A model finished loading: show it, and take the dtype it really computes in (f16 runs as
   *  f32 on a WebGPU adapter without shader-f16), so the audit's condition says what ran. */
  modelLoaded(info: ModelInfo): void {
    this.modelInfo = info;
    this.condition.engineDtype = info.dtype;
  }

  /** A model field changed: what was loaded, and why it failed, no longer describe the choice. */
  invalidateModel(): void {
    this.modelInfo = null;
    this.hubMeta = null;
    this.modelError = null;
    this.modelEpoch++;
  }

  /** Adopt what a permalink carries; the returned list names what it could not apply. */
  applyPermalink(link: ParsedPermalink): string[] {
    if (link.model?.kind === 'builtin') this.chooseBuiltin(link.model.id ?? BUILTIN_MODEL_ID);
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

  /** The condition's fields as the form labels them. */
  private conditionProblems(): (string | null)[] {
    const c = this.condition;
    const out: (string | null)[] = [];
    out.push(
      c.promptTemplate.includes('{{question}}') ? null : 'The prompt template must contain {{question}}, where each question goes.',
      wholeNumberProblem('Few-shot examples', c.fewShot.n, 0, MAX_FEW_SHOT),
      wholeNumberProblem('Max new tokens', c.maxNewTokens, 1, MAX_NEW_TOKENS),
    );
    if (c.decoding.kind === 'sample') {
      out.push(numberProblem('Temperature', c.decoding.temperature, 0.01, MAX_TEMPERATURE), numberProblem('Top-p', c.decoding.topP, 0.01, 1));
      out.push(wholeNumberProblem('Sampling seed', c.decoding.seed, 0, MAX_SEED));
    }
    if (!out.some((p) => p !== null)) {
      // anything else the condition schema refuses (e.g. stop sequences), in its words
      const checked = validateCondition(this.runCondition);
      if (Array.isArray(checked)) out.push(...checked.map((e) => `Condition: ${e}.`));
    }
    return out;
  }

  private withSeedAndBudget(id: PresetId, spec: ProbeSpec): ProbeSpec {
    return reseeded(spec, this.probeSeed, this.budgets[id]);
  }
}
