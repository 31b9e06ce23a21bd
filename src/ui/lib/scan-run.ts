// A silencing scan run opened on its own (a study's scan run: the mlp-silencing probe alone). Which
// questions are failures and which realized comes from the run that defined the scan, found through
// the stored studies; per question, each layer's effect is the core's (scanRole, silencingEffect).

import { failureSet, INTERVENTION, isIntervention, scanRole, titleOf } from '../../audit';
import { scanProbe, scanQuestions } from '../../audit/study-plan';
import type { QuestionRecord } from '../../audit/types';
import type { AppBackend, StoredRun, StoredStudyEntry } from '../backend';
import { groupByQuestion, silencingEffects, type QuestionView, type SilencingEffectRow } from './analysis';

/** A run of intervention probes only (a study's scan run): its questions' roles come from another run. */
export function isScanRun(run: StoredRun): boolean {
  return run.manifest.probes.length > 0 && run.manifest.probes.every(isIntervention);
}

/** The run whose failure and realized questions a study's scan run covers. */
export interface DefiningRef {
  run_id: string;
  run_key: string;
  /** Its probe label in the plan (the plan's scan probe). */
  label: string;
  /** The study's name and plan key. */
  study: string;
  plan_key: string;
}

/** The defining run of the scan run `scanRunId`: in the study that started it, the run of the same
 *  model and task with the plan's scan probe (as the study runner chose it). */
export function definingRef(scanRunId: string, studies: readonly StoredStudyEntry[]): DefiningRef | null {
  for (const s of studies) {
    const scan = s.runs.find((r) => r.run_id === scanRunId && r.label === INTERVENTION);
    if (!scan) continue;
    const label = scanProbe(s.plan);
    const def = s.runs.find((r) => r.model === scan.model && r.task === scan.task && r.label === label);
    if (def?.run_id && def.run_key) return { run_id: def.run_id, run_key: def.run_key, label, study: s.plan.name, plan_key: s.plan_key };
  }
  return null;
}

export interface ScanRunQuestion {
  view: QuestionView;
  role: 'failure' | 'realized' | null;
  /** Whether the scan has this question's silencing record yet. */
  scanned: boolean;
  /** Layers whose silenced MLP repairs this failure, or breaks this realized question. */
  repairs: number[];
  breaks: number[];
  effects: SilencingEffectRow[];
}

export interface ScanRunView {
  /** The scan's records and, for its questions, the defining run's (what the question screen reads). */
  records: QuestionRecord[];
  /** The reach probe whose failure set the scan ran on; undefined without the defining run. */
  reachKey: string | undefined;
  questions: ScanRunQuestion[];
  total: number;
  scanned: number;
  failures: number | null;
  realized: number | null;
  /** Why the scan ran on `total` questions. */
  sentence: string;
}

export function scanRunView(scan: StoredRun, defining: { run: StoredRun; ref: DefiningRef } | null): ScanRunView {
  const total = scan.manifest.task.questions;
  const scannedIds = new Set(scan.records.filter(isIntervention).map((r) => r.doc_id));
  if (!defining) {
    const views = groupByQuestion(scan.records);
    return {
      records: scan.records,
      reachKey: undefined,
      questions: views.map((view) => ({ view, role: null, scanned: scannedIds.has(view.doc_id), repairs: [], breaks: [], effects: silencingEffects(view, undefined) })),
      total,
      scanned: scannedIds.size,
      failures: null,
      realized: null,
      sentence: `${total} questions: the failure and realized questions of the run that defined this scan. No stored study names that run, so which question is which is not known here.`,
    };
  }
  // the same functions the study runner chose the scan's questions with
  const { failures, realized } = scanQuestions(defining.run.records);
  const reachKey = failureSet(defining.run.records).probe_key;
  const order = [...failures, ...realized];
  const byDoc = (records: readonly QuestionRecord[], id: string) => records.filter((r) => r.doc_id === id);
  const records = order.flatMap((id) => [...byDoc(defining.run.records, id), ...byDoc(scan.records, id)]);
  const questions = groupByQuestion(records).map((view): ScanRunQuestion => {
    const effects = silencingEffects(view, reachKey);
    const layersOf = (word: string) => effects.filter((e) => e.effect === word).flatMap((e) => e.layers);
    return { view, role: scanRole(view.records, reachKey), scanned: scannedIds.has(view.doc_id), repairs: layersOf('repaired'), breaks: layersOf('broken'), effects };
  });
  const probe = titleOf(defining.run.records.find((r) => r.probe_key === reachKey)!.probe_spec);
  const of = `the defining run ${defining.ref.label} (${defining.ref.run_key.slice(0, 12)}) of the study “${defining.ref.study}”`;
  const sum = failures.length + realized.length;
  const count = (k: number, what: string) => `${k} ${what} question${k === 1 ? '' : 's'}`;
  const sentence =
    sum === total
      ? `${total} = the ${count(failures.length, 'failure')} (reachable under ${probe}, not realized) + ${count(realized.length, 'realized')} of ${of}.`
      : `This scan ran on ${total} questions, but ${of} now gives ${failures.length} failure + ${realized.length} realized = ${sum}: its records changed after the scan ran.`;
  return { records, reachKey, questions, total, scanned: scannedIds.size, failures: failures.length, realized: realized.length, sentence };
}

let last: { id: string; view: Promise<ScanRunView> } | null = null;

/** The view of a scan run, its defining run read from the store (the last one is kept: the Results
 *  and question screens of one run share it). */
export function loadScanRunView(backend: AppBackend, scan: StoredRun): Promise<ScanRunView> {
  const id = `${scan.manifest.id}:${scan.records.length}`;
  if (last?.id === id) return last.view;
  const view = (async () => {
    const ref = definingRef(scan.manifest.id, await backend.listStudies());
    const run = ref ? await backend.getRun(ref.run_id).catch(() => null) : null;
    return scanRunView(scan, ref && run ? { run, ref } : null);
  })();
  last = { id, view };
  view.catch(() => (last = null));
  return view;
}
