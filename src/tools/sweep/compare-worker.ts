// The tinypool worker of compare: one column per call (see compare-task.ts).
import { runColumnTask } from './compare-task.js';
import type { ColumnResult, ColumnTask } from './compare-task.js';

export default function compareWorker(task: ColumnTask): ColumnResult {
  return runColumnTask(task);
}
