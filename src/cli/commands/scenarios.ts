// `bcsim scenarios`: the built-in scenarios with what each is for: the BC ones, then
// the scheme scenarios (run with `bcsim compare <name>`).
import { listBuiltins } from '../../model/scenario/index.js';
import { listSchemeBuiltins } from '../../rtype/schemes/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK } from '../io.js';

export function scenariosCommand(flags: { json?: boolean }, io: CliIO): number {
  const builtins = listBuiltins();
  const schemes = listSchemeBuiltins();
  if (flags.json) {
    // A scheme built-in carries `scheme` ("rtype" or "side-by-side"); a BC one has no such key.
    io.stdout(`${JSON.stringify([...builtins, ...schemes])}\n`);
    return EXIT_OK;
  }
  for (const b of builtins) {
    const clients = b.clients === 1 ? '' : `, ${b.clients} clients`;
    io.stdout(`${b.name} (${b.duration}${clients})\n${wrap(b.description, 76, '    ')}\n\n`);
  }
  for (const b of schemes) {
    const what = b.scheme === 'rtype' ? 'R-Type scheme' : 'BC and R-Type side by side';
    io.stdout(
      `${b.name} (${b.duration}, ${b.clients} clients, ${what}: bcsim compare ${b.name})\n${wrap(b.description, 76, '    ')}\n\n`,
    );
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
