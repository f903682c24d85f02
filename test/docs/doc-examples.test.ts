// The rules that find documented examples (test/support/doc-examples.ts): what
// counts as an example and where its exit code comes from.
import { describe, expect, it } from 'vitest';
import { helpExamples, isExample, markdownExamples } from '../support/doc-examples.js';

const md = (text: string) => markdownExamples('DOC.md', text).map((e) => [e.command, e.expectedExit, e.background]);

describe('examples in markdown', () => {
  it('takes sh blocks, joins continuations, reads "exits N" from the comment on or above the line', () => {
    const text = [
      '```sh',
      'npx bcsim run lossy-link --json   # prints one object',
      '# exits 1: a remedy switched off',
      'bcsim swarm --runs 9 \\',
      '  --switch closePolicy=immediate',
      'bcsim proxy --listen 127.0.0.1:22102 --upstream 127.0.0.1:22101 &',
      'cp x y',
      '```',
    ].join('\n');
    expect(md(text)).toEqual([
      ['npx bcsim run lossy-link --json', 0, false],
      ['bcsim swarm --runs 9 --switch closePolicy=immediate', 1, false],
      ['bcsim proxy --listen 127.0.0.1:22102 --upstream 127.0.0.1:22101', 0, true],
    ]);
  });

  it('takes transcript lines and yaml run lines; other blocks are output', () => {
    const text = [
      'They say so (one line, exit 2):',
      '',
      '```',
      '$ bcsim run rtype-deaths',
      'bcsim: rtype-deaths: a scheme scenario',
      '```',
      '```',
      'bcsim peer client · live · mode fixed',
      '```',
      '```yaml',
      '- run: npx bcsim sweep-merge shards/*.jsonl --out results.jsonl',
      '- run: |',
      '    npx bcsim sweep x.json --shard ${{ matrix.shard }}/20',
      '```',
    ].join('\n');
    expect(md(text)).toEqual([
      ['bcsim run rtype-deaths', 2, false],
      ['npx bcsim sweep-merge shards/*.jsonl --out results.jsonl', 0, false],
    ]);
  });

  it('takes inline spans with an argument, and the exit code the rest of the sentence gives', () => {
    const text =
      'So `bcsim trace long-session | head -50` returns at once with exit 0, and `bcsim check my.json --seeds 1..3`\nexits 1 when it fails. Read with `bcsim decode -`, `bcsim run`, `bcsim decode --json` or `bcsim peer client`.';
    expect(md(text)).toEqual([
      ['bcsim trace long-session | head -50', 0, false],
      ['bcsim check my.json --seeds 1..3', 1, false],
    ]);
  });
});

describe('what is not an example', () => {
  it.each([
    'bcsim run <scenario> [--json]',
    'bcsim check FILE.json',
    'bcsim proxy --listen HOST:PORT',
    'bcsim run valentines --switch keepalive.idleCounts=…',
    'bcsim peer client: no answer from 127.0.0.1:22101',
    'bcsim sweep x.json --shard $((JOB_COMPLETION_INDEX+1))/20',
    'bcsim decode <hex…> \\| - \\| --file PATH',
  ])('%s', (command) => expect(isExample(command, true)).toBe(false));

  it.each([
    'bcsim decode FF 01 03 08 01 00 00 00 7F 00',
    "bcsim compare lossy-link --fail-on 'fixed:delivery.reliableLost>0'",
    "bcsim sweep lossy-link --vary 'traffic.phases[1].reliablePerSecond=10..60:10'",
  ])('but this is: %s', (command) => expect(isExample(command, true)).toBe(true));
});

describe('examples in --help', () => {
  it('takes indented bcsim lines; a trailing (…) phrase is a comment that may give the exit code', () => {
    const help = [
      'Examples:',
      '  bcsim swarm --runs 100',
      '  bcsim swarm --seed 1 --index 2      (exits 1: the planted bug breaks it)',
      '  bcsim decode 01 01 00 02 (a two-byte keepalive)',
      'Exit codes: 0 none failed, 1 a failure',
    ].join('\n');
    expect(helpExamples('swarm', help).map((e) => [e.command, e.expectedExit])).toEqual([
      ['bcsim swarm --runs 100', 0],
      ['bcsim swarm --seed 1 --index 2', 1],
      ['bcsim decode 01 01 00 02', 0],
    ]);
  });
});
