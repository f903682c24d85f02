// The tinypool worker of a sweep: one grid run per call (see task.ts).
import { runTask } from './task.js';
import type { RunTask, TaskResult } from './task.js';

export default function sweepWorker(task: RunTask): TaskResult {
  return runTask(task);
}
