// What a study report was made from, exported with it: the plan as run (loadable as a plan again),
// its seeds, the app, and for every run cited its model, revision (and Hub commit), fingerprint,
// engine, condition (with its key) and probes, from the run's manifest; and the definitions of the
// numbers shown.

import { DEFINITIONS, type Definition } from './definitions';
import type { StudyReport } from './study-report';
import type { ChatTemplateFile, EngineDtype, ExecutionProvider, RuntimeInfo } from '../engine/types';
import type { Condition, ProbeSpec, RunManifest } from './types';
import { studyVerdicts, type StudyVerdicts } from './verdict';

export interface RunProvenance {
  run_key: string;
  /** `commit`: the Hub commit the revision resolved to, where the manifest knows it. */
  model: { name: string; source: string; revision: string | null; commit?: string; fingerprint: string; chat_template: ChatTemplateFile | null };
  task: { id: string; version: number; questions: number; question_seed: number | null };
  condition_key: string;
  condition: Condition | null;
  probes: ProbeSpec[];
  /** Execution provider, weight dtype, the runtime (build and version) and, on WebGPU, the adapter
   *  the engine ran on; null when unknown. */
  engine: { ep: ExecutionProvider; dtype: EngineDtype; adapter?: string; runtime?: RuntimeInfo } | null;
  app_version: string;
  status: RunManifest['status'];
}

export interface StudyProvenance {
  plan_key: string;
  seeds: { question_seed: number; seed: number; split_seed: number };
  app: { version: string; commit: string };
  /** Every run the report cites, by run key; a run whose manifest could not be read is listed
   *  under `unavailable`. */
  runs: RunProvenance[];
  unavailable: string[];
  definitions: readonly Definition[];
}

/** The report as exported: the report (with the plan as run), the verdicts and the provenance. */
export type StudyExport = StudyReport & { verdicts: StudyVerdicts; provenance: StudyProvenance };

/** Every run key a report cites, each once. */
export function citedRunKeys(r: StudyReport): string[] {
  return [...new Set([...r.settings.flatMap((s) => s.run_keys), ...r.f2.cases.flatMap((c) => c.run_keys), ...r.f3.pairs.flatMap((p) => [...p.run_keys.base, ...p.run_keys.trained])])];
}

export function runProvenance(run_key: string, m: RunManifest): RunProvenance {
  return {
    run_key,
    model: { name: m.model.name, source: m.model.source, revision: m.model.revision ?? null, ...(m.model.commit ? { commit: m.model.commit } : {}), fingerprint: m.model.fingerprint, chat_template: m.model.chatTemplate ?? null },
    task: { id: m.task.id, version: m.task.version, questions: m.task.questions, question_seed: m.task.question_seed ?? null },
    condition_key: m.condition_key,
    condition: m.condition,
    probes: m.probes,
    engine: m.engine,
    app_version: m.appVersion,
    status: m.status,
  };
}

/** The exported report; `manifests` maps each cited run key to its manifest (missing ones are
 *  named under provenance.unavailable). */
export function studyExport(report: StudyReport, manifests: ReadonlyMap<string, RunManifest>, app: { version: string; commit: string }): StudyExport {
  const keys = citedRunKeys(report);
  const plan = report.plan;
  return {
    ...report,
    verdicts: studyVerdicts(report),
    provenance: {
      plan_key: report.plan_key,
      seeds: { question_seed: plan.question_seed, seed: plan.seed, split_seed: plan.split_seed },
      app,
      runs: keys.filter((k) => manifests.has(k)).map((k) => runProvenance(k, manifests.get(k)!)),
      unavailable: keys.filter((k) => !manifests.has(k)),
      definitions: DEFINITIONS,
    },
  };
}
