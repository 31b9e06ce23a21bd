import { describe, expect, it } from 'vitest';
import { schedulerShard } from './scheduler-shard.ts';

describe('--shard auto', () => {
  it('takes a Kubernetes Indexed Job\'s index, the count from --shard-count or the plan\'s settings', () => {
    expect(schedulerShard({ JOB_COMPLETION_INDEX: '0' }, undefined, 3)).toEqual({ index: 1, count: 3 });
    expect(schedulerShard({ JOB_COMPLETION_INDEX: '4' }, 5, 3)).toEqual({ index: 5, count: 5 });
    expect(() => schedulerShard({ JOB_COMPLETION_INDEX: '3' }, undefined, 3)).toThrow("index 3 is not below the shard count 3 (the plan's 3 settings; a Job with more completions needs --shard-count)");
    expect(() => schedulerShard({ JOB_COMPLETION_INDEX: 'x' }, undefined, 3)).toThrow('JOB_COMPLETION_INDEX must be a whole number, got "x"');
  });

  it('takes a Slurm array task\'s index relative to its first task and step', () => {
    expect(schedulerShard({ SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '5', SLURM_ARRAY_TASK_COUNT: '4' }, undefined, 9)).toEqual({ index: 3, count: 4 });
    expect(schedulerShard({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_STEP: '2', SLURM_ARRAY_TASK_COUNT: '3' }, undefined, 9)).toEqual({ index: 3, count: 3 });
    expect(() => schedulerShard({ SLURM_ARRAY_TASK_ID: '1' }, undefined, 2)).toThrow('SLURM_ARRAY_TASK_COUNT is not');
    expect(() => schedulerShard({ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '2' }, 3, 2)).toThrow('--shard-count 3 differs from SLURM_ARRAY_TASK_COUNT 2');
    expect(() => schedulerShard({ SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_STEP: '2', SLURM_ARRAY_TASK_COUNT: '3' }, undefined, 2)).toThrow('is not MIN 0 plus a multiple of STEP 2');
  });

  it('names the variables it reads when no scheduler set them, and refuses both at once', () => {
    expect(() => schedulerShard({}, undefined, 2)).toThrow('JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (a Slurm job array); neither is set');
    expect(() => schedulerShard({ JOB_COMPLETION_INDEX: '0', SLURM_ARRAY_TASK_ID: '0' }, undefined, 2)).toThrow('both JOB_COMPLETION_INDEX');
  });
});
