// Terminal styling that respects NO_COLOR, FORCE_COLOR and a non-TTY stdout, decided from
// what the CLI's I/O says (tests pass their own), on Node's own util.styleText.
import { styleText } from 'node:util';

type Paint = (text: string | number) => string;

/** The few styles bcsim's tables use; each is the identity when colour is off. */
export interface TerminalStyle {
  readonly bold: Paint;
  readonly dim: Paint;
  readonly yellow: Paint;
  readonly red: Paint & { readonly bold: Paint };
  readonly green: Paint & { readonly bold: Paint };
}

type Format = Parameters<typeof styleText>[0];

function painter(on: boolean, format: Format): Paint {
  // validateStream: false, since whether to colour is decided here from the CLI's own I/O.
  return on ? (text) => styleText(format, String(text), { validateStream: false }) : (text) => String(text);
}

export function terminalStyle(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): TerminalStyle {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const force = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '';
  const on = !noColor && (force || isTTY);
  return {
    bold: painter(on, 'bold'),
    dim: painter(on, 'dim'),
    yellow: painter(on, 'yellow'),
    red: Object.assign(painter(on, 'red'), { bold: painter(on, ['red', 'bold']) }),
    green: Object.assign(painter(on, 'green'), { bold: painter(on, ['green', 'bold']) }),
  };
}
