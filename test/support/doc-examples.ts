// Finds every `bcsim …` / `npx bcsim …` example in the documentation and in the
// commands' --help, with the exit code its text gives it, so a test can run them
// all (test/docs/examples.test.ts). Rules, so a new example is covered without
// touching the test:
//
// - Markdown: lines of ```sh / ```bash / ```shell blocks; `$ ` lines of any block
//   (a transcript); `run:` lines and the lines under `run: |` of ```yaml blocks;
//   inline `code` spans in the prose. Other fenced blocks are output. A trailing
//   `\` joins the next line.
// - --help: every line that starts with spaces then `bcsim `; text after two or more
//   spaces and `(` is a comment.
// - Not an example: a span or line with a placeholder (`<…>`, `[…]`, `…`, `\|`, an
//   all-capitals word such as FILE, N or HOST:PORT that is not a hex byte), a bare
//   command name (`bcsim run`, `bcsim peer client`), a message (`bcsim peer server: …`),
//   and a CI template (`${{ … }}`, `$((…))`): the CI fills in its values.
// - Exit code: "exits N" / "exit N" in a `#` comment on the line or on the comment line
//   right above it, in the (…) comment of a --help line, or in the rest of the sentence
//   after an inline span, or in the sentence that introduces the block (the one ending
//   in `:` right above the fence); otherwise 0.

export interface DocExample {
  /** Where it is written: `README.md:84` or `bcsim run --help`. */
  readonly where: string;
  /** The command as printed: continuations joined, prompt and comment removed. */
  readonly command: string;
  readonly expectedExit: number;
  /** What the expected exit code rests on. */
  readonly exitFrom: string;
  /** Ends with `&`: it runs beside the examples after it in its block. */
  readonly background: boolean;
  /** The fenced block it is in (examples of one block share a counterpart and a background job). */
  readonly block: string;
}

const COMMAND = /^(?:npx )?bcsim(?:\s|$)/;
const EXIT_WORDS = /\bexit(?:s| code| codes)? (\d+)\b/;
/** The words that name a command before its arguments: `peer client`, `reproduce rtype`. */
const TWO_WORD = new Set(['peer', 'reproduce']);

export function markdownExamples(file: string, text: string): DocExample[] {
  const lines = text.split('\n');
  const out: DocExample[] = [];
  let fence: { lang: string; start: number; intro: number | undefined } | null = null;
  let literalRunIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      fence = fence === null ? { lang: trimmed.slice(3).trim(), start: i + 1, intro: introExit(lines, i) } : null;
      literalRunIndent = -1;
      continue;
    }
    if (fence === null) {
      out.push(...inlineExamples(file, i + 1, line, lines[i + 1] ?? ''));
      continue;
    }
    const block = `${file}:${fence.start}`;
    let candidate: string | null = null;
    if (trimmed.startsWith('$ ')) candidate = trimmed.slice(2);
    else if (['sh', 'bash', 'shell'].includes(fence.lang)) candidate = trimmed;
    else if (fence.lang === 'yaml') {
      const run = /^(?:- )?run:\s*(.*)$/.exec(trimmed);
      if (run !== null) {
        literalRunIndent = run[1] === '|' ? line.search(/\S/) : -1;
        candidate = run[1] === '|' ? null : run[1];
      } else if (literalRunIndent >= 0 && line.search(/\S/) > literalRunIndent) candidate = trimmed;
      else literalRunIndent = -1;
    }
    if (candidate === null || !COMMAND.test(candidate)) continue;
    // Continuations.
    let command = candidate;
    let j = i;
    while (command.endsWith('\\') && j + 1 < lines.length)
      command = `${command.slice(0, -1).trimEnd()} ${lines[++j].trim()}`;
    const { text: cleaned, comment } = splitShellComment(command);
    const above = (lines[i - 1] ?? '').trim();
    const own = exitIn(comment) ?? (above.startsWith('#') ? exitIn(above) : undefined);
    const exit = own ?? fence.intro;
    const from =
      own !== undefined
        ? `the comment: "${(exitIn(comment) !== undefined ? comment : above).trim()}"`
        : exit !== undefined
          ? `the sentence before the block`
          : 'no exit code in the text: 0';
    i = j;
    const example = build(`${file}:${i + 1}`, cleaned, exit, block, from);
    if (example !== null) out.push(example);
  }
  return out;
}

export function helpExamples(command: string, help: string): DocExample[] {
  const out: DocExample[] = [];
  for (const line of help.split('\n')) {
    if (!/^\s+bcsim\s/.test(line)) continue;
    // A trailing "(…)" phrase is a comment; no command ends with ")".
    const comment = /\s+\(([^()]* [^()]*)\)\s*$/.exec(line);
    const text = (comment === null ? line : line.slice(0, comment.index)).trim();
    const exit = comment === null ? undefined : exitIn(comment[1]);
    const example = build(
      `bcsim ${command} --help`,
      text,
      exit,
      `bcsim ${command} --help`,
      exit === undefined ? 'no exit code in the text: 0' : `the comment: "(${comment?.[1]})"`,
    );
    if (example !== null) out.push(example);
  }
  return out;
}

function inlineExamples(file: string, lineNumber: number, line: string, next: string): DocExample[] {
  const out: DocExample[] = [];
  for (const m of line.matchAll(/`((?:npx )?bcsim [^`]+)`/g)) {
    // The rest of the sentence (it may go on on the next line) may say how it exits.
    const rest = `${line.slice((m.index ?? 0) + m[0].length)} ${next}`;
    const sentence = rest.split(/(?<=\.)\s|`/)[0];
    const exit = exitIn(sentence);
    const example = build(
      `${file}:${lineNumber}`,
      m[1],
      exit,
      `${file}:${lineNumber}`,
      exit === undefined ? 'no exit code in the text: 0' : `the sentence: "${sentence.trim()}"`,
      true,
    );
    if (example !== null) out.push(example);
  }
  return out;
}

function build(
  where: string,
  text: string,
  exit: number | undefined,
  block: string,
  exitFrom: string,
  inline = false,
): DocExample | null {
  let command = text.trim();
  const background = /\s&$/.test(command);
  if (background) command = command.slice(0, -1).trim();
  if (!isExample(command, inline)) return null;
  return { where, command, expectedExit: exit ?? 0, exitFrom, background, block };
}

/** The exit code the sentence introducing a block gives (the paragraph right above it, ending with `:`). */
function introExit(lines: readonly string[], fenceAt: number): number | undefined {
  let k = fenceAt - 1;
  while (k >= 0 && lines[k].trim() === '') k--;
  if (k < 0 || !lines[k].trim().endsWith(':')) return undefined;
  const paragraph: string[] = [];
  while (k >= 0 && lines[k].trim() !== '' && !lines[k].trim().startsWith('```')) paragraph.unshift(lines[k--].trim());
  const sentences = paragraph.join(' ').split(/(?<=\.)\s/);
  return exitIn(sentences[sentences.length - 1]);
}

function exitIn(text: string): number | undefined {
  const m = EXIT_WORDS.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** Placeholders, bare command names, messages and CI templates are not examples. */
export function isExample(command: string, inline = false): boolean {
  if (/\$\{\{|\$\(\(/.test(command)) return false;
  const words = unquotedWords(command);
  const start = words[0] === 'npx' ? 1 : 0;
  const path = TWO_WORD.has(words[start + 1]) ? 3 : 2;
  // `bcsim peer server: …` is a message, not a command.
  if (words.slice(start, start + path).some((w) => w.endsWith(':'))) return false;
  // `bcsim run`, `bcsim peer client`, `bcsim decode --json` in prose name a command or a flag:
  // an inline example has an argument that is not a flag.
  if (inline && !words.slice(start + path).some((w) => !w.startsWith('-'))) return false;
  return !words.some(isPlaceholder);
}

function isPlaceholder(word: string): boolean {
  if (/^[0-9A-F]{2}$/.test(word)) return false; // a hex byte
  return /[<>…]|^\[|\\\|/.test(word) || /^[A-Z][A-Z0-9_]*([.:][A-Za-z0-9]+)*$/.test(word);
}

/** The words outside quotes (quoted text is a value, never a placeholder). */
function unquotedWords(command: string): string[] {
  return command
    .replace(/'[^']*'|"[^"]*"/g, 'QUOTED'.toLowerCase())
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** `cmd  # comment` -> the command and the comment (a # inside quotes is text). */
function splitShellComment(line: string): { text: string; comment: string } {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1])))
      return { text: line.slice(0, i).trimEnd(), comment: line.slice(i + 1) };
  }
  return { text: line, comment: '' };
}
