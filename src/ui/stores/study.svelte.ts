// The Study screen's state: the plan being edited (a preset or the user's JSON), the study running
// in this tab and its progress, and the report on show.

import builtinPlan from '../../../studies/builtin.json';
import finding1Plan from '../../../studies/finding1-small.json';
import finding3Plan from '../../../studies/finding3-pairs.json';
import { normalizePlan, plannedRuns, type NormalizedPlan, type StudyReport } from '../../audit/study';
import type { AppBackend, StoredStudyEntry, StudyProgress } from '../backend';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { rawPlan, writePlan, type RawPlan } from '../lib/study-form';
import { encodeStudyLink, type StudyLink } from '../lib/study-link';

export const STUDY_PRESETS = [
  { id: 'builtin', label: 'Built-in study (offline, micro models)', plan: builtinPlan },
  { id: 'finding1', label: 'Finding 1 at small scale (Hub models and tasks)', plan: finding1Plan },
  { id: 'finding3', label: 'Finding 3 pairs (Hub base/trained models)', plan: finding3Plan },
] as const;
export type StudyPresetId = (typeof STUDY_PRESETS)[number]['id'];

const pretty = (x: unknown) => JSON.stringify(x, null, 2);

export class StudyState {
  /** The plan as JSON text (what the editor shows, what a permalink carries). */
  planText = $state(pretty(builtinPlan));
  progress = $state.raw<StudyProgress | null>(null);
  report = $state.raw<StudyReport | null>(null);
  running = $state(false);
  error = $state.raw<UserMessage | null>(null);
  studies = $state.raw<StoredStudyEntry[]>([]);
  /** What was wrong with the study link the app was opened with. */
  linkProblem = $state<string | null>(null);

  constructor(private readonly backend: AppBackend) {}

  usePreset(id: StudyPresetId): void {
    this.planText = pretty(STUDY_PRESETS.find((p) => p.id === id)!.plan);
    this.linkProblem = null;
  }

  /** A study link's plan goes into the editor (nothing starts); its problem, if any, is shown. */
  applyLink(link: StudyLink): void {
    if ('planText' in link) this.planText = link.planText;
    this.linkProblem = link.problem ?? null;
  }

  /** The plan as written, for the form; null while the text is not a JSON object. */
  get raw(): RawPlan | null {
    return rawPlan(this.planText);
  }

  /** A form edit: rewrites the plan text (the source of truth). */
  edit(change: (raw: RawPlan) => RawPlan): void {
    const raw = this.raw;
    if (raw && !this.running) this.planText = writePlan(change(raw));
  }

  /** The URL hash of a link to the plan as written; null while the text is not a JSON object. */
  get linkHash(): string | null {
    const raw = this.raw;
    return raw ? encodeStudyLink(raw) : null;
  }

  /** The plan, normalized, or the reason it is not a plan. */
  get parsed(): { plan: NormalizedPlan } | { problem: string } {
    try {
      return { plan: normalizePlan(JSON.parse(this.planText)) };
    } catch (e) {
      return { problem: e instanceof SyntaxError ? `The plan is not valid JSON: ${e.message}` : (e as Error).message };
    }
  }

  /** The planned runs and how far each is: done, running or waiting. */
  get runs(): { label: string; model: string; task: string; state: 'done' | 'running' | 'waiting' }[] {
    const p = this.parsed;
    if (!('plan' in p)) return [];
    const done = this.progress?.runsDone ?? 0;
    return plannedRuns(p.plan).map((r, i) => ({
      label: r.label,
      model: r.setting.model,
      task: r.setting.task,
      state: i < done ? 'done' : i === done && this.running ? 'running' : 'waiting',
    }));
  }

  async start(): Promise<void> {
    const p = this.parsed;
    if (!('plan' in p)) {
      this.error = { title: p.problem, hint: 'Fix the plan, or pick a preset.', action: 'none' };
      return;
    }
    this.error = null;
    this.running = true;
    this.report = null;
    try {
      this.report = await this.backend.runStudy(p.plan, (progress) => (this.progress = progress));
    } catch (e) {
      if (this.progress?.status !== 'paused') this.error = toUserMessage(e, 'study');
    } finally {
      this.running = false;
      await this.refresh();
    }
  }

  async pause(): Promise<void> {
    await this.backend.pauseStudy();
  }

  async refresh(): Promise<void> {
    try {
      this.studies = await this.backend.listStudies();
    } catch (e) {
      this.error = toUserMessage(e, 'library');
    }
  }

  /** Shows a stored study's report (from the runs it finished) and its plan. */
  async open(planKey: string): Promise<void> {
    try {
      const entry = this.studies.find((s) => s.plan_key === planKey);
      if (entry) this.planText = pretty(entry.plan);
      this.report = await this.backend.studyReport(planKey);
    } catch (e) {
      this.error = toUserMessage(e, 'library');
    }
  }
}
