// Helpers for the Wireshark dissector tests: build
// captures with text2pcap, run tshark with dissector/bcsim.lua, and read its
// JSON back as one flat field map per datagram and per message.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from '../../src/core/codec/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DISSECTOR = join(ROOT, 'dissector', 'bcsim.lua');

/** What the first check found, for every later test of the file: starting tshark costs most of a second. */
let found: { version: string; lua: string } | Error | undefined;

/**
 * Fails with one clear line when tshark or text2pcap is missing or has no Lua:
 * these tests never skip (.ci/run installs Debian's tshark, which brings both).
 * Every test calls it; tshark runs once per file, and a missing one fails each test.
 */
export function requireWireshark(): { version: string; lua: string } {
  if (found === undefined) {
    try {
      found = checkWireshark();
    } catch (error) {
      found = error as Error;
    }
  }
  if (found instanceof Error) throw found;
  return found;
}

function checkWireshark(): { version: string; lua: string } {
  const tshark = spawnSync('tshark', ['-v'], { encoding: 'utf8' });
  if (tshark.error || tshark.status !== 0) {
    throw new Error(
      "tshark is not installed or does not run: the dissector tests need Debian's tshark with Lua (apt-get install tshark; .ci/run installs it)",
    );
  }
  const text2pcap = spawnSync('text2pcap', ['-v'], { encoding: 'utf8' });
  if (text2pcap.error)
    throw new Error('text2pcap is not installed: it comes with tshark (Debian package wireshark-common)');
  const lua = /with Lua\s+([0-9.]+)/.exec(tshark.stdout);
  if (!lua) throw new Error('this tshark was built without Lua, so it cannot load dissector/bcsim.lua');
  const version = /TShark \(Wireshark\) ([^\s]+)/.exec(tshark.stdout);
  return { version: version ? version[1] : 'unknown', lua: lua[1] };
}

/** A datagram on the wire: who sent it, when, on which connection, and its UDP payload. */
export interface WirePacket {
  /** Seconds since the start of the capture. */
  t: number;
  fromServer: boolean;
  /** Client number (1-based); picks the client's address and port. */
  client: number;
  bytes: Uint8Array;
}

export interface Addressing {
  serverIp: string;
  serverPort: number;
  clientIp: (client: number) => string;
  clientPort: (client: number) => number;
}

/** As bcsim's capture export places the hosts: server 10.10.10.1:22101, client k 10.10.10.(238+k):22101+k. */
export const BCSIM_ADDRESSING: Addressing = {
  serverIp: '10.10.10.1',
  serverPort: 22101,
  clientIp: (k) => `10.10.10.${238 + k}`,
  clientPort: (k) => 22101 + k,
};

/** Ports no other Wireshark dissector claims, so only the heuristic can. */
export const UNREGISTERED_ADDRESSING: Addressing = {
  serverIp: '192.168.7.1',
  serverPort: 41000,
  clientIp: (k) => `192.168.7.${1 + k}`,
  clientPort: (k) => 41000 + k,
};

const LINE = '^(?<dir>[<>])\\s(?<time>\\d+:\\d\\d:\\d\\d\\.\\d+)\\s(?<data>[0-9a-fA-F]+)$';

function timeOf(t: number): string {
  const micros = Math.round(t * 1e6);
  const h = Math.floor(micros / 3.6e9);
  const m = Math.floor(micros / 6e7) % 60;
  const s = (micros % 6e7) / 1e6;
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(6).padStart(9, '0')}`;
}

/**
 * Writes `packets` as a pcapng with text2pcap: one text2pcap run per client
 * (its dummy IPv4/UDP headers carry one address pair; `<` is server to client,
 * `>` client to server), merged by time with mergecap when there are several.
 * Within one client the order given is kept; matchFrames pairs frames and packets.
 */
export function writeCapture(
  dir: string,
  name: string,
  packets: readonly WirePacket[],
  addressing: Addressing = BCSIM_ADDRESSING,
): string {
  mkdirSync(dir, { recursive: true });
  const clients = [...new Set(packets.map((p) => p.client))].sort((a, b) => a - b);
  const parts: string[] = [];
  for (const client of clients) {
    const lines = packets
      .filter((p) => p.client === client)
      .map((p) => `${p.fromServer ? '<' : '>'} ${timeOf(p.t)} ${toHex(p.bytes, '')}`);
    const input = join(dir, `${name}.client${client}.txt`);
    const output = clients.length === 1 ? join(dir, `${name}.pcapng`) : join(dir, `${name}.client${client}.pcapng`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const ips = `${addressing.serverIp},${addressing.clientIp(client)}`;
    const ports = `${addressing.serverPort},${addressing.clientPort(client)}`;
    run('text2pcap', ['-q', '-r', LINE, '-t', '%H:%M:%S.%f', '-4', ips, '-u', ports, input, output]);
    parts.push(output);
  }
  const file = join(dir, `${name}.pcapng`);
  if (parts.length > 1) run('mergecap', ['-w', file, ...parts]);
  return file;
}

/**
 * The frame of each packet (same order as `packets`): the k-th frame of a
 * client's flow is the k-th packet of that client, whatever order the merge
 * chose between clients.
 */
export function matchFrames<F extends { ports: [number, number] }>(
  frames: readonly F[],
  packets: readonly WirePacket[],
  addressing: Addressing = BCSIM_ADDRESSING,
): F[] {
  const byClient = new Map<number, F[]>();
  for (const frame of frames) {
    const port = frame.ports[0] === addressing.serverPort ? frame.ports[1] : frame.ports[0];
    const client = packets.find((p) => addressing.clientPort(p.client) === port)?.client;
    if (client === undefined) throw new Error(`frame on unexpected port ${port}`);
    if (!byClient.has(client)) byClient.set(client, []);
    byClient.get(client)!.push(frame);
  }
  const next = new Map<number, number>();
  return packets.map((p) => {
    const k = next.get(p.client) ?? 0;
    next.set(p.client, k + 1);
    const frame = byClient.get(p.client)?.[k];
    if (frame === undefined) throw new Error(`no frame for packet ${k} of client ${p.client}`);
    return frame;
  });
}

function run(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`${command} did not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export interface TsharkOptions {
  /** `KEY=VALUE` arguments for the script (tshark -X lua_script1:KEY=VALUE). */
  scriptArgs?: string[];
  /** `-o NAME:VALUE` preferences. */
  prefs?: string[];
  twoPass?: boolean;
  /** Load the dissector with -X lua_script (default) or rely on a plugin folder under `home`. */
  load?: 'script' | 'plugin';
  /** HOME for tshark: a fresh folder, so no personal plugin or preference of the user interferes. */
  home: string;
  extra?: string[];
}

/** Runs tshark on `file` with the dissector; fails on any Lua error or unexpected stderr. */
export function tshark(file: string, output: string[], options: TsharkOptions): string {
  mkdirSync(options.home, { recursive: true });
  const args = ['-n', '-r', file];
  if ((options.load ?? 'script') === 'script') {
    args.push('-X', `lua_script:${DISSECTOR}`);
    (options.scriptArgs ?? []).forEach((a) => args.push('-X', `lua_script1:${a}`));
  }
  for (const pref of options.prefs ?? []) args.push('-o', pref);
  if (options.twoPass) args.push('-2');
  args.push(...output, ...(options.extra ?? []));
  const r = spawnSync('tshark', args, {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, HOME: options.home, XDG_CONFIG_HOME: join(options.home, '.config') },
  });
  if (r.error) throw new Error(`tshark did not run: ${r.error.message}`);
  const stderr = r.stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.includes('Running as user "root"'))
    .join('\n');
  if (r.status !== 0 || stderr !== '') throw new Error(`tshark ${args.join(' ')} exited ${r.status}:\n${stderr}`);
  return r.stdout;
}

export interface Expert {
  /** The expert's own field, e.g. bc.fragment_retransmission. */
  field: string;
  message: string;
  severity: number;
  group: number;
}

/** Every field under a tree node, flattened: name -> values in tree order (subtrees included). */
export interface Node {
  fields: Record<string, string[]>;
  experts: Expert[];
}

export interface Frame {
  number: number;
  protocols: string;
  /** UDP source and destination ports. */
  ports: [number, number];
  /** The UDP payload as captured. */
  payload: Uint8Array;
  /** The bc layer: datagram fields, and one node per message; undefined when the frame is not claimed. */
  bc?: Node & { messages: Node[] };
  /** The frame's whole JSON text, to look for _ws.malformed or _ws.lua.error anywhere. */
  raw: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function asArray(value: Json): Json[] {
  return Array.isArray(value) ? value : [value];
}

function collect(object: { [key: string]: Json }, node: Node, skipMessages: boolean): void {
  for (const [key, value] of Object.entries(object)) {
    if (skipMessages && key === 'bc.message') continue;
    for (const item of asArray(value)) {
      if (key === '_ws.expert' && item !== null && typeof item === 'object' && !Array.isArray(item)) {
        const field = Object.keys(item).find((k) => !k.startsWith('_ws.expert')) ?? '';
        node.experts.push({
          field,
          message: String(item['_ws.expert.message']),
          severity: Number(item['_ws.expert.severity']),
          group: Number(item['_ws.expert.group']),
        });
      } else if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
        collect(item, node, false);
      } else if (!key.startsWith('_ws.')) {
        // Wireshark's own markers (_ws.malformed under a malformed expert) are looked for in Frame.raw.
        (node.fields[key] ??= []).push(String(item));
      }
    }
  }
}

/** tshark -T json, read back per frame. */
export function dissect(file: string, options: TsharkOptions): Frame[] {
  const text = tshark(file, ['-T', 'json', '--no-duplicate-keys'], options);
  const packets = JSON.parse(text) as Array<{ _source: { layers: { [key: string]: Json } } }>;
  return packets.map((packet) => {
    const layers = packet._source.layers;
    const frame = layers.frame as { [key: string]: Json };
    const udp = layers.udp as { [key: string]: Json };
    const result: Frame = {
      number: Number(frame['frame.number']),
      protocols: String(frame['frame.protocols']),
      ports: [Number(udp['udp.srcport']), Number(udp['udp.dstport'])],
      payload: Uint8Array.from(
        (String(udp['udp.payload'] ?? '').match(/[0-9a-f]{2}/g) ?? []).map((h) => parseInt(h, 16)),
      ),
      raw: JSON.stringify(layers),
    };
    const bc = layers.bc as { [key: string]: Json } | undefined;
    if (bc !== undefined) {
      const root: Node = { fields: {}, experts: [] };
      collect(bc, root, true);
      const messages = bc['bc.message'] === undefined ? [] : asArray(bc['bc.message']);
      result.bc = {
        ...root,
        messages: messages.map((m) => {
          const node: Node = { fields: {}, experts: [] };
          collect(m as { [key: string]: Json }, node, false);
          return node;
        }),
      };
    }
    return result;
  });
}

/**
 * The data sources tshark -x prints for each frame ("Frame", and e.g. "Decrypted BC"),
 * in frame order: one block per frame, blank-line separated; a block with a single
 * source has no "Name (N bytes):" heading.
 */
export function dataSources(file: string, options: TsharkOptions): Array<Map<string, Uint8Array>> {
  const text = tshark(file, ['-x'], options);
  const frames: Array<Map<string, Uint8Array>> = [];
  for (const block of text.split(/\n\s*\n/)) {
    if (block.trim() === '') continue;
    const sources = new Map<string, number[]>();
    let name = 'Frame';
    for (const line of block.split('\n')) {
      const heading = /^(.+) \((\d+) bytes?\):$/.exec(line);
      if (heading) {
        name = heading[1];
        sources.set(name, []);
        continue;
      }
      const row = /^[0-9a-f]{4,}  ((?:[0-9a-f]{2} ){0,15}[0-9a-f]{2})/.exec(line);
      if (!row) throw new Error(`tshark -x: unexpected line ${JSON.stringify(line)}`);
      if (!sources.has(name)) sources.set(name, []);
      sources.get(name)!.push(...row[1].split(' ').map((h) => parseInt(h, 16)));
    }
    frames.push(new Map([...sources].map(([k, v]) => [k, Uint8Array.from(v)])));
  }
  return frames;
}
