/**
 * Who is at the other end of a loopback TCP connection, on Linux: the uid
 * the kernel lists for the peer's socket in /proc/net/tcp (or tcp6), found by
 * its address pair (its local address is our remote one and the reverse).
 * Factory Droid sends no token, so its face admits a connection only when
 * this uid is ours. Without /proc (macOS, Windows) nothing can be told:
 * `peerUidSupported` is false and the face is not served (docs/agents.md, docs/reliability.md).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

const TABLES = { 4: '/proc/net/tcp', 6: '/proc/net/tcp6' } as const;
/** The tables are a line per socket (150 bytes): a bound far above any desktop's sockets, so the work per connection is bounded. */
export const MAX_TABLE_BYTES = 16 * 1024 * 1024;
const CHUNK = 256 * 1024;

export function peerUidSupported(): boolean {
  return process.platform === 'linux' && typeof process.getuid === 'function' && fs.existsSync(TABLES[4]);
}

/** An address as the kernel prints it: each 32-bit word of the address in host order (little-endian here), hex upper case. */
export function kernelHex(address: string): string | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  let hex = '';
  for (let word = 0; word < bytes.length; word += 4) {
    for (let i = 3; i >= 0; i--) hex += bytes[word + i]!.toString(16).padStart(2, '0');
  }
  return hex.toUpperCase();
}

function addressBytes(address: string): number[] | undefined {
  if (net.isIPv4(address)) return address.split('.').map(Number);
  if (!net.isIPv6(address)) return undefined;
  let text = address.split('%')[0]!;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail = v4[1]!.split('.').map(Number);
    text = text.slice(0, -v4[1]!.length) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const left = groups(head);
  const right = groups(rest);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right];
  if (all.length !== 8) return undefined;
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** `address:port` as a table prints it. */
function endpoint(address: string, port: number): string | undefined {
  const hex = kernelHex(address);
  return hex === undefined ? undefined : `${hex}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The uid owning the socket whose local end is `peer` and remote end `us`,
 * read from the kernel's table; undefined when no such socket is listed
 * (then the caller refuses). An IPv4-mapped address is looked up both ways.
 */
export function peerUid(peer: { address: string; port: number }, us: { address: string; port: number }): number | undefined {
  const mapped = (a: string) => (a.toLowerCase().startsWith('::ffff:') && net.isIPv4(a.slice(7)) ? a.slice(7) : undefined);
  const tries: Array<[keyof typeof TABLES, string, string]> = [];
  const add = (table: keyof typeof TABLES, a: string, b: string) => {
    const from = endpoint(a, peer.port);
    const to = endpoint(b, us.port);
    if (from && to) tries.push([table, from, to]);
  };
  const peer4 = net.isIPv4(peer.address) ? peer.address : mapped(peer.address);
  const us4 = net.isIPv4(us.address) ? us.address : mapped(us.address);
  if (peer4 && us4) add(4, peer4, us4);
  if (net.isIPv6(peer.address) && net.isIPv6(us.address)) add(6, peer.address, us.address);
  for (const [table, from, to] of tries) {
    const uid = findUid(TABLES[table], ` ${from} ${to} `);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

/** The uid column of the line holding `pair`, reading at most MAX_TABLE_BYTES of `table`. */
function findUid(table: string, pair: string): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(table, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(CHUNK);
    let text = '';
    for (let read = 0; read < MAX_TABLE_BYTES;) {
      const n = fs.readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      read += n;
      text += buffer.toString('latin1', 0, n);
      const at = text.indexOf(pair);
      if (at >= 0) {
        const lineEnd = text.indexOf('\n', at);
        if (lineEnd < 0 && read < MAX_TABLE_BYTES) continue;
        const line = text.slice(text.lastIndexOf('\n', at) + 1, lineEnd < 0 ? undefined : lineEnd);
        // sl local rem st tx:rx tr:when retrnsmt uid ...
        const uid = Number(line.trim().split(/\s+/)[7]);
        return Number.isInteger(uid) ? uid : undefined;
      }
      // Keep only the unfinished last line: the pair may straddle two reads.
      text = text.slice(text.lastIndexOf('\n') + 1);
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
