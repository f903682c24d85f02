// `bcsim scenarios`: the built-in scenarios with what each is for.
import { listBuiltins } from '../../scenario/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK } from '../io.js';

export function scenariosCommand(flags: { json?: boolean }, io: CliIO): number {
  const builtins = listBuiltins();
  if (flags.json) {
    io.stdout(`${JSON.stringify(builtins)}\n`);
    return EXIT_OK;
  }
  for (const b of builtins) {
    const clients = b.clients === 1 ? '' : `, ${b.clients} clients`;
    io.stdout(`${b.name} (${b.duration}${clients})\n${wrap(b.description, 76, '    ')}\n\n`);
  }
  return EXIT_OK;
}

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}
