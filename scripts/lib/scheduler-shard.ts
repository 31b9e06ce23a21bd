// `study --shard auto`: the shard a scheduler's copy of the command is, from its environment.
//   Kubernetes Indexed Job   JOB_COMPLETION_INDEX (0-based); the count is the Job's completions,
//                            which the pod does not see: --shard-count N, else the plan's settings
//                            (one pod per setting)
//   Slurm job array          SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT
//                            (and SLURM_ARRAY_TASK_STEP for --array=a-b:s): the index is
//                            (ID − MIN) / STEP
// The result is the CLI's own --shard i/n (1-based i), so a scheduled shard computes exactly what
// `--shard i/n` does and the shards merge with --import.

export interface Shard {
  index: number; // 1-based
  count: number;
}

type Env = Record<string, string | undefined>;

const whole = (name: string, v: string): number => {
  if (!/^\d+$/.test(v)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
};

/** The shard of this process under a scheduler; `count` is --shard-count, `settings` the plan's. */
export function schedulerShard(env: Env, count: number | undefined, settings: number): Shard {
  const k8s = env.JOB_COMPLETION_INDEX;
  const slurm = env.SLURM_ARRAY_TASK_ID;
  if (k8s !== undefined && slurm !== undefined) throw new Error('--shard auto: both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set; say --shard i/n');
  let index: number;
  let n: number;
  if (k8s !== undefined) {
    index = whole('JOB_COMPLETION_INDEX', k8s);
    n = count ?? settings;
  } else if (slurm !== undefined) {
    const id = whole('SLURM_ARRAY_TASK_ID', slurm);
    const min = whole('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN ?? '0');
    const step = whole('SLURM_ARRAY_TASK_STEP', env.SLURM_ARRAY_TASK_STEP ?? '1');
    if (env.SLURM_ARRAY_TASK_COUNT === undefined) throw new Error('--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not');
    n = whole('SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT);
    if (count !== undefined && count !== n) throw new Error(`--shard-count ${count} differs from SLURM_ARRAY_TASK_COUNT ${n}`);
    if (step === 0 || id < min || (id - min) % step !== 0) throw new Error(`--shard auto: SLURM_ARRAY_TASK_ID ${id} is not MIN ${min} plus a multiple of STEP ${step}`);
    index = (id - min) / step;
  } else {
    throw new Error('--shard auto needs a scheduler\'s index: JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (a Slurm job array); neither is set');
  }
  if (n < 1) throw new Error(`--shard auto: the shard count must be at least 1, got ${n}`);
  if (index >= n) throw new Error(`--shard auto: index ${index} is not below the shard count ${n}${k8s !== undefined ? (count === undefined ? ` (the plan's ${settings} settings; a Job with more completions needs --shard-count)` : '') : ''}`);
  return { index: index + 1, count: n };
}
