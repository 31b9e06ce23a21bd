// Which attempts of a question can be looked inside (engine/readout.ts), and which are suggested:
// the deployment attempt, and per other probe its first attempt that reached the gold answer (a
// route that reached it, a silenced layer that repaired it).
import { isDeployment, titleOf } from '../../audit';
import type { AttemptLook } from '../../engine/readout';
import type { QuestionView } from './analysis';

export interface LookTarget {
  /** probe key # attempt index: unique within a question. */
  key: string;
  label: string;
  deployment: boolean;
  correct: boolean;
  look: AttemptLook;
}

/** Every attempt of the question whose route is known, deployment first. A scored (log-likelihood)
 *  attempt has no response text: its emitted token is the greedy choice. */
export function lookTargets(q: QuestionView): LookTarget[] {
  const out: LookTarget[] = [];
  for (const r of q.records) {
    const deployment = isDeployment(r);
    for (const a of r.attempts) {
      if (a.route === null) continue;
      const silenced = a.silence.length ? `, MLP ${a.silence.join(', ')} silenced` : '';
      out.push({
        key: `${r.probe_key}#${a.index}`,
        label: deployment ? 'deployment attempt' : `${titleOf(r.probe_spec)}, attempt ${a.index + 1}${silenced}`,
        deployment,
        correct: a.correct,
        look: { prompt: r.arguments.prompt, route: a.route, silence: a.silence, gold: q.target, response: a.response === 'loglik' ? '' : a.response },
      });
    }
  }
  return out.sort((x, y) => Number(y.deployment) - Number(x.deployment));
}

/** The deployment attempt and each probe's first correct attempt. */
export function suggestedTargets(targets: readonly LookTarget[]): LookTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const probe = t.key.slice(0, t.key.lastIndexOf('#'));
    if (!(t.deployment || t.correct) || seen.has(probe)) return false;
    seen.add(probe);
    return true;
  });
}
