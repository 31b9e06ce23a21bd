// The Study screen's state: the plan being edited (a preset or the user's JSON), where that plan
// stands in the store (its runs done and its status, read from the store, never kept here), the
// study running in this tab and its progress, and the report on show.

import builtinPlan from '../../../studies/builtin.json';
import finding1Plan from '../../../studies/finding1-small.json';
import finding3Plan from '../../../studies/finding3-pairs.json';
import { type StudyReport } from '../../audit/study-report';
import { normalizePlan, plannedRuns, type NormalizedPlan } from '../../audit/study-plan';
import { JsonInputError, parseJsonInput } from '../../util/json-input';
import type { AppBackend, StoredStudyEntry, StudyOverview, StudyProgress } from '../backend';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { endedStudyRate, saveRate } from '../lib/rates';
import { rawPlan, writePlan, type RawPlan } from '../lib/study-form';
import { encodeStudyLink, questionShortfalls, type StudyLink } from '../lib/study-link';
import { countdown, nextCountdown, type Countdown, type TimeLeft } from '../lib/run-clock';
import { Clock } from './clock.svelte';
import { BUILTIN_STUDY_MACHINE, studyPriorSeconds } from '../lib/study-estimate';

export const STUDY_PRESETS = [
  { id: 'builtin', label: 'Built-in study (offline, micro models)', plan: builtinPlan },
  { id: 'finding1', label: 'Finding 1 at small scale (Hub models and tasks)', plan: finding1Plan },
  { id: 'finding3', label: 'Finding 3 pairs (Hub base/trained models)', plan: finding3Plan },
] as const;
export type StudyPresetId = (typeof STUDY_PRESETS)[number]['id'];

const pretty = (x: unknown) => JSON.stringify(x, null, 2);

/** "2026-12-05 16:20 UTC" */
export const when = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');

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
  /** Where the plan on screen stands in the store, and the plan text it was read for. */
  overview = $state.raw<{ text: string; of: StudyOverview } | null>(null);
  /** Where a study stopped (a reload mid-study), shown on the Study screen. */
  notice = $state<string | null>(null);
  private overviewSeq = 0;
  /** The study's latest time left, counted down by the wall clock; when this tab started it. */
  private eta = $state.raw<Countdown | null>(null);
  private startedAt = $state<number | null>(null);
  /** bench:study's time for the runs left when this tab started the study (lib/study-estimate.ts),
   *  counted down until the study times a run of its own. */
  private prior = $state.raw<Countdown | null>(null);

  constructor(
    private readonly backend: AppBackend,
    /** Where the paces of the study's runs are kept for Setup's estimate (lib/rates.ts). */
    private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null = null,
    readonly clock: Clock = new Clock(),
  ) {}

  /** Time left for the study, ticking with the wall clock between progress messages. */
  get timeLeft(): TimeLeft | null {
    const measured = countdown(this.eta, this.clock.now);
    if (measured || !this.prior) return measured;
    return { sec: countdown(this.prior, this.clock.now)!.sec, guess: `bench:study's time on ${BUILTIN_STUDY_MACHINE}, until a run here is timed` };
  }

  /** The plan on screen's time on the bench machine, for the runs it has left; null where unknown. */
  get estimateSec(): number | null {
    const p = this.parsed;
    const whole = 'plan' in p ? studyPriorSeconds(p.plan) : null;
    const o = this.shown;
    return whole === null ? null : o && o.runsTotal > 0 ? (whole * (o.runsTotal - o.runsDone)) / o.runsTotal : whole;
  }

  get elapsedMs(): number {
    return this.startedAt === null ? 0 : this.clock.now - this.startedAt;
  }

  usePreset(id: StudyPresetId): void {
    this.planText = pretty(STUDY_PRESETS.find((p) => p.id === id)!.plan);
    this.linkProblem = null;
  }

  /** A study link's plan goes into the editor (nothing starts); its problem, if any, is shown. */
  applyLink(link: StudyLink): void {
    if ('planText' in link) this.planText = link.planText;
    this.linkProblem = link.problem ?? null;
    if ('planText' in link && !link.problem) void this.flagShortfalls(link.planText);
  }

  /** A linked plan asking more questions than a task holds, flagged before Start (the CLI's words). */
  private async flagShortfalls(planText: string): Promise<void> {
    const problems = await questionShortfalls(normalizePlan(JSON.parse(planText)));
    if (problems.length && this.planText === planText && this.linkProblem === null) {
      this.linkProblem = `The plan in the study link cannot run as written: ${problems.join('; ')}.`;
    }
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
      return { plan: normalizePlan(parseJsonInput(this.planText)) };
    } catch (e) {
      if (e instanceof JsonInputError) return { problem: `The plan is refused: ${e.message}` };
      return { problem: e instanceof SyntaxError ? `The plan is not valid JSON: ${e.message}` : (e as Error).message };
    }
  }

  /** The stored standing of the plan on screen; null while it is being read or is not a plan. */
  get shown(): StudyOverview | null {
    return this.overview && this.overview.text === this.planText ? this.overview.of : null;
  }

  /** Reads where the plan on screen stands in the store (after an edit, and as runs finish). */
  async refreshOverview(): Promise<void> {
    const seq = ++this.overviewSeq;
    const text = this.planText;
    const p = this.parsed;
    if (!('plan' in p)) return;
    try {
      const of = await this.backend.studyOverview(p.plan);
      if (seq === this.overviewSeq) this.overview = { text, of };
    } catch (e) {
      this.error = toUserMessage(e, 'study');
    }
  }

  /** The planned runs of the plan on screen: done when their run is finished in the store, running
   *  while this tab works on them, else waiting. */
  get runs(): { label: string; model: string; task: string; state: 'done' | 'running' | 'waiting' }[] {
    const p = this.parsed;
    if (!('plan' in p)) return [];
    const o = this.shown;
    const current = this.running && o && this.progress?.plan_key === o.plan_key ? this.progress.current : null;
    return plannedRuns(p.plan).map((r, i) => ({
      label: r.label,
      model: r.setting.model,
      task: r.setting.task,
      state: o?.runs[i]?.done ? 'done' : current?.model === r.setting.model && current.task === r.setting.task && current.label === r.label ? 'running' : 'waiting',
    }));
  }

  async start(): Promise<void> {
    const p = this.parsed;
    if (!('plan' in p)) {
      this.error = { title: p.problem, hint: 'Fix the plan, or pick a preset.', action: 'none' };
      return;
    }
    this.error = null;
    this.notice = null;
    this.running = true;
    this.report = null;
    this.eta = null;
    const prior = this.estimateSec;
    this.startedAt = this.clock.tick();
    this.prior = prior === null ? null : { sec: prior, at: this.startedAt, stale: false };
    this.clock.start();
    try {
      this.report = await this.backend.runStudy(p.plan, (progress) => {
        const before = this.progress;
        this.progress = progress;
        this.eta = nextCountdown(this.eta, progress.etaSec ?? null, this.clock.tick());
        // a report of this study opened meanwhile follows each run that finishes
        if (progress.runsDone !== before?.runsDone && this.report?.plan_key === progress.plan_key) void this.reloadReport(progress.plan_key);
        const ended = endedStudyRate(before, progress);
        if (ended) saveRate(this.storage, ended.key, ended.rate);
        // the overview derives every planned run's key from the store (study-executor.ts plannedRunKeys):
        // read it again when the study's standing changes, not on each question's progress
        const standing = (q: StudyProgress | null) => (q ? [q.plan_key, q.status, q.runsDone, q.current?.runId ?? ''].join('\u0000') : '');
        if (standing(before) !== standing(progress)) void this.refreshOverview();
      });
    } catch (e) {
      if (this.progress?.status !== 'paused') this.error = toUserMessage(e, 'study');
    } finally {
      this.running = false;
      this.clock.stop();
      await Promise.all([this.refresh(), this.refreshOverview()]);
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

  /** The report on show again, from the runs finished by now; kept as it was when that fails. */
  private async reloadReport(planKey: string): Promise<void> {
    const r = await this.backend.studyReport(planKey).catch(() => null);
    if (r && this.report?.plan_key === planKey) this.report = r;
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

  /** The report of the plan on screen, from its finished runs; absent until the study is stored
   *  (run once) and one of its runs is done. */
  get canOpenReport(): boolean {
    const o = this.shown;
    return o !== null && o.startedAt !== undefined && o.runsDone > 0;
  }

  async openReport(): Promise<void> {
    const o = this.shown;
    if (!o || !this.canOpenReport) return;
    if (this.report?.plan_key === o.plan_key && !this.report.missing.length) return;
    try {
      this.report = await this.backend.studyReport(o.plan_key);
    } catch (e) {
      this.error = toUserMessage(e, 'study');
    }
  }

  /** The latest study a closed or reloaded tab left running, if any (read from the store). */
  async interrupted(): Promise<StoredStudyEntry | null> {
    await this.refresh();
    return this.studies.find((s) => s.status === 'interrupted') ?? null;
  }

  /** Puts a stopped study's plan in the editor and says where it stopped. */
  showStopped(s: StoredStudyEntry): void {
    this.planText = pretty(s.plan);
    this.linkProblem = null;
    const how = s.status === 'interrupted' ? 'stopped when its page was closed or reloaded' : s.status === 'incomplete' ? 'has runs missing from the library' : `is ${s.status}`;
    this.notice = `The study “${s.plan.name}” (plan ${s.plan_key.slice(0, 12)}, started ${when(s.startedAt)}) ${how}, with ${s.runsDone} of ${s.runsTotal} runs done; those are stored. Resume the study to run the rest.`;
    void this.refreshOverview();
  }

  /** Resumes a stored study: its plan goes into the editor and runs from where it stopped. */
  async resume(s: StoredStudyEntry): Promise<void> {
    this.showStopped(s);
    await this.start();
  }
}
