/** The discovery file: name, place, content, permissions, PID (spec §I.2, interop-notes). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { readDiscoveryFile, type DiscoveryFileRead } from '@ide-companion/client/discoveryFiles';
import { DiscoveryFileSchema, IdeInfoSchema, parseDiscoveryFileName, splitWorkspacePath } from '@ide-companion/protocol';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import type { Recorder } from './report.js';

export interface DiscoveryFileCheckInput {
  file: string;
  /** Where the real CLI looks: os.tmpdir()/gemini/ide. */
  expectedDir: string;
}

/** Runs every discovery.* check on `file`. */
export function checkDiscoveryFile(input: DiscoveryFileCheckInput, record: Recorder): void {
  const { file } = input;
  const read = readDiscoveryFile(file);
  const name = read.fileName;
  const fromName = parseDiscoveryFileName(name);
  if (fromName) record.pass('discovery.name', `${name} matches gemini-ide-server-PID-PORT.json`);
  else record.fail('discovery.name', `${name} does not match gemini-ide-server-PID-PORT.json: the CLI never reads it`);

  const dir = path.dirname(file);
  if (samePath(dir, input.expectedDir)) record.pass('discovery.location', `in ${dir}`);
  else record.warn('discovery.location', `in ${dir}, but the CLI only reads ${input.expectedDir}`);

  checkFileMode(read, record);
  checkDirMode(dir, record);

  if (fromName) {
    if (isProcessAlive(fromName.pid)) record.pass('discovery.pid', `PID ${fromName.pid} is running`);
    else record.fail('discovery.pid', `PID ${fromName.pid} is not running: a stale file the CLI may still pick`);
  } else {
    record.skip('discovery.pid', 'no PID: the name does not match the pattern');
  }

  const json = read.json;
  if (json === undefined) {
    record.fail('discovery.schema', `not a readable JSON object: ${read.readError}`);
    record.skipRemaining('the content is not a JSON object', ['discovery']);
    return;
  }
  // ideInfo is judged on its own (discovery.ideInfo), so a missing one fails exactly one check.
  const schema = z.omit(DiscoveryFileSchema, { ideInfo: true });
  const parsed = schema.safeParse(json);
  if (parsed.success) record.pass('discovery.schema', 'port, workspacePath and authToken have the right types');
  else record.fail('discovery.schema', `does not match the contract: ${issues(parsed.error)}`);

  const content = json;
  const ideInfo = IdeInfoSchema.safeParse(content['ideInfo']);
  if (ideInfo.success) record.pass('discovery.ideInfo', `ideInfo names ${JSON.stringify(ideInfo.data.displayName)} (${ideInfo.data.name})`);
  else if (content['ideInfo'] === undefined)
    record.fail('discovery.ideInfo', 'no ideInfo: the CLI refuses to connect from any terminal but VS Code, Sublime, Zed, Xcode or JetBrains');
  else record.fail('discovery.ideInfo', `ideInfo is invalid: ${issues(ideInfo.error)}`);

  if (fromName && typeof content['port'] === 'number') {
    if (content['port'] === fromName.port) record.pass('discovery.port', `both say ${fromName.port}`);
    else record.fail('discovery.port', `the name says ${fromName.port}, the content ${content['port']}: the CLI dials the content's port`);
  } else {
    record.skip('discovery.port', fromName ? 'the content has no numeric port' : 'the name has no port');
  }

  checkWorkspacePath(content['workspacePath'], record);
}

function checkWorkspacePath(value: unknown, record: Recorder): void {
  if (typeof value !== 'string') {
    record.fail('discovery.workspacePath', 'workspacePath is missing or not a string');
    return;
  }
  const roots = splitWorkspacePath(value, path.delimiter);
  if (roots.length === 0) {
    record.warn('discovery.workspacePath', 'empty: the CLI asks the user to open a workspace folder and does not connect');
    return;
  }
  const problems: string[] = [];
  for (const root of roots) {
    if (!path.isAbsolute(root)) problems.push(`${root} is not absolute`);
    else if (!isDirectory(root)) problems.push(`${root} is not an existing directory`);
  }
  if (problems.length === 0)
    record.pass('discovery.workspacePath', `${roots.length} absolute root${roots.length === 1 ? '' : 's'} that exist${roots.length === 1 ? 's' : ''}`);
  else record.fail('discovery.workspacePath', `${problems.join('; ')}: the CLI resolves roots against its own cwd and reports a directory mismatch`);
}

function checkFileMode(read: DiscoveryFileRead, record: Recorder): void {
  const st = read.entry;
  if (!st) {
    record.fail('discovery.fileMode', `cannot stat: ${read.readError ?? 'the file is gone'}`);
    return;
  }
  if (st.isSymbolicLink) return record.fail('discovery.fileMode', 'the file is a symbolic link');
  if (!st.isFile) return record.fail('discovery.fileMode', 'not a regular file');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    return record.fail('discovery.fileMode', `owned by uid ${st.uid}, not by you (uid ${uid}): the CLI ignores it`);
  }
  if (process.platform === 'win32') return record.skip('discovery.fileMode', 'POSIX modes do not apply on Windows');
  const mode = st.mode;
  if ((mode & 0o077) !== 0) record.fail('discovery.fileMode', `mode ${octal(mode)}: other users can read the token; create it 0600`);
  else record.pass('discovery.fileMode', `mode ${octal(mode)}, owned by you`);
}

function checkDirMode(dir: string, record: Recorder): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    record.fail('discovery.dirMode', `cannot stat ${dir}: ${(err as NodeJS.ErrnoException).code}`);
    return;
  }
  if (st.isSymbolicLink()) return record.fail('discovery.dirMode', `${dir} is a symbolic link: whoever owns its target controls where the token goes`);
  if (!st.isDirectory()) return record.fail('discovery.dirMode', `${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return record.fail('discovery.dirMode', `${dir} belongs to uid ${st.uid}: that user can swap the file`);
  if (process.platform === 'win32') return record.skip('discovery.dirMode', 'POSIX modes do not apply on Windows');
  const mode = st.mode & 0o777;
  if ((mode & 0o022) !== 0) record.fail('discovery.dirMode', `mode ${octal(mode)}: other users can plant or replace discovery files`);
  else if ((mode & 0o077) !== 0) record.warn('discovery.dirMode', `mode ${octal(mode)}: other users can list which companions run; 0700 expected`);
  else record.pass('discovery.dirMode', `mode ${octal(mode)}, owned by you, not a link`);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

function issues(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
