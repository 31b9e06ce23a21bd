// An imported record is checked against what this version would compute from it: its doc and
// prompt hashes from its own question and prompt, each attempt's grade from its response with the
// run's stated grader, and every derived field (realized, reachable, first_success, stop_reason,
// budget, invalid, decoy fields, selector picks) from its attempts through the same functions that
// make records (audit/record.ts recordOutcome, audit/decoy.ts decoyFields). A record that
// disagrees is refused with the run, the record and the field named. A run whose condition is
// unknown (lm-evaluation-harness) or was graded by another grader version cannot be regraded: its
// records are kept, marked unverified, and never reused (import.ts).

import { docHash } from '../audit/attempts.ts';
import { decoyControl, decoyFields } from '../audit/decoy.ts';
import { grade, GRADER_VERSION, INVALID, isAnswer } from '../audit/graders.ts';
import { probeOf } from '../audit/probes/registry.ts';
import { recordOutcome } from '../audit/record.ts';
import { majorityVote, maxLogprob } from '../audit/selectors.ts';
import type { Condition, QuestionRecord, RunManifest } from '../audit/types.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { StoreError } from './errors.ts';

/** Whether a run's records can be regraded here: its condition is known and graded by this
 *  version's grader. */
export function canRegrade(manifest: RunManifest): manifest is RunManifest & { condition: Condition } {
  return manifest.condition !== null && manifest.condition.graderVersion === GRADER_VERSION;
}

/**
 * Checks every record of an imported run (see the file comment); throws StoreError
 * 'invalid-import' naming the first disagreement. `label(i)` names record i in the file.
 */
export async function verifyRecords(manifest: RunManifest & { condition: Condition }, records: readonly QuestionRecord[], where: string, label: (i: number) => string): Promise<void> {
  for (const [i, r] of records.entries()) {
    const problem = await disagreement(manifest, r).catch((e: unknown) => ({ field: 'target', why: `cannot be graded (${e instanceof Error ? e.message : String(e)})` }));
    if (problem) {
      throw new StoreError(
        'invalid-import',
        `${where}: run ${manifest.id}, ${label(i)} (question ${r.doc_id}, probe ${r.probe}): ${problem.field} ${problem.why} (the file was altered, or written by a version that graded differently)`,
      );
    }
  }
}

interface Disagreement {
  field: string;
  why: string;
}

const differ = (field: string, stated: unknown, computed: unknown): Disagreement | null =>
  canonicalJson(stated ?? null) === canonicalJson(computed ?? null)
    ? null
    : { field, why: `says ${canonicalJson(stated ?? null)}, but this version computes ${canonicalJson(computed ?? null)} from the record` };

async function disagreement(manifest: RunManifest & { condition: Condition }, r: QuestionRecord): Promise<Disagreement | null> {
  const cond = manifest.condition;
  const spec = manifest.probes.find((p) => p.probe === r.probe);
  if (!spec) return { field: 'probe', why: `"${r.probe}" is not a probe of the run` };
  const first =
    differ('doc_id', r.doc_id, r.doc.id) ??
    differ('target', r.target, r.doc.target) ??
    differ('doc_hash', r.doc_hash, await docHash(r.doc)) ??
    differ('prompt_hash', r.prompt_hash, await sha256Hex(r.arguments.prompt)) ??
    differ('probe_spec', r.probe_spec, spec);
  if (first) return first;
  for (const [k, a] of r.attempts.entries()) {
    const at = `attempts[${k}]`;
    const g =
      cond.mcMode === 'loglik'
        ? { extracted: a.extracted, correct: a.extracted !== INVALID && a.extracted === r.doc.target }
        : grade(cond.answerFormat, r.doc.target, a.response, { choices: r.doc.choices, requireBoxed: cond.requireBoxed === true });
    const bad = differ(`${at}.index`, a.index, k) ?? differ(`${at}.extracted`, a.extracted, g.extracted) ?? differ(`${at}.correct`, a.correct, g.correct);
    if (bad) return bad;
  }
  const budget = probeOf(spec).budget(spec);
  const outcome = recordOutcome(spec, r.attempts, budget);
  const derived: [string, unknown, unknown][] = [
    ['resps', r.resps, r.attempts.map((a) => a.response)],
    ['filtered_resps', r.filtered_resps, r.attempts.map((a) => a.extracted)],
    ['budget', r.budget, budget],
    ['realized', r.realized, outcome.realized],
    ['reachable', r.reachable, outcome.reachable],
    ['first_success', r.first_success, outcome.first_success],
    ['stop_reason', r.stop_reason, outcome.stop_reason],
    ['invalid', r.invalid, outcome.invalid],
    ['selection_saw_gold', r.selection_saw_gold, probeOf(spec).sawGold],
  ];
  const decoy = decoyFields({ probe: r.probe, doc: r.doc, attempts: r.attempts, budget }, decoyControl(cond));
  for (const k of Object.keys(decoy) as (keyof typeof decoy)[]) derived.push([k, r[k], decoy[k]]);
  for (const [field, stated, computed] of derived) {
    const bad = differ(field, stated, computed);
    if (bad) return bad;
  }
  return pickDisagreement(cond, r);
}

/** Selector picks: majority and max-logprob recomputed from the attempts; a pick of a stated
 *  attempt (fixed route) must be that attempt; an extra decode's pick is regraded by its answer. */
function pickDisagreement(cond: Condition, r: QuestionRecord): Disagreement | null {
  for (const [name, p] of Object.entries(r.selectors ?? {})) {
    const at = `selectors.${name}`;
    const pick = { extracted: p.extracted, correct: p.correct, attempt: p.attempt };
    let bad: Disagreement | null;
    if (name === 'majority') bad = differ(at, pick, majorityVote(r.attempts));
    else if (name === 'max-logprob') bad = differ(at, pick, maxLogprob(r.attempts));
    else if (p.attempt !== null) {
      const a = r.attempts.find((x) => x.index === p.attempt);
      bad = a ? differ(at, pick, { extracted: a.extracted, correct: a.correct, attempt: a.index }) : { field: `${at}.attempt`, why: `names attempt ${p.attempt}, which the record does not hold` };
    } else bad = differ(`${at}.correct`, p.correct, p.extracted !== INVALID && isAnswer(cond.answerFormat, r.doc.target, p.extracted));
    if (bad) return bad;
  }
  return null;
}
