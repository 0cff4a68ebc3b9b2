/**
 * `ide-companion connect` in one file (bin/ide-companion-connect.mjs, node
 * built-ins only): mounted read-only into a container, or copied to an SSH
 * remote, it runs on whatever Node the CLI there has. The `ide-companion` bin
 * imports it for `connect`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXIT, parseCommandArgs, UsageError, usageOf } from '@ide-companion/command/commandSpec';
import { cleanText, ENV } from '@ide-companion/protocol';
import { checkSocketToDial, REFUSED_DIAL } from '@ide-companion/shared/privateSocket';
import { CONNECT_COMMAND_SPEC } from './commandSpec.js';
import { PathMap, PathMapError } from './pathMap.js';
import { runRelay, type RelayTarget } from './relay.js';

export const TOKEN_FILE_NAME = 'token';

class StartError extends Error {
  override name = 'StartError';
}

/** The socket refused at start (shared/privateSocket.ts): said as every refusal is. */
class RefusedAtStart extends StartError {}

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Refuses what another user owns: their socket would hand our CLI to their companion, their token file is not ours to trust. */
function checkOwned(file: string, what: string, isRightKind: (st: fs.Stats) => boolean, kind: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new StartError(`${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (err as Error).message}`);
  }
  if (!isRightKind(st)) throw new StartError(`${what} ${file} is not a ${kind}`);
  const me = uid();
  if (me !== undefined && st.uid !== me) {
    throw new StartError(`${what} ${file} belongs to another user (uid ${st.uid}, we are ${me}); refusing to use it`);
  }
}

function readToken(values: Record<string, unknown>, socketPath: string | undefined): string {
  const file = (values['token-file'] as string | undefined) ?? (socketPath ? path.join(path.dirname(socketPath), TOKEN_FILE_NAME) : undefined);
  if (file && (values['token-file'] !== undefined || fs.existsSync(file))) {
    checkOwned(file, 'the token file', (st) => st.isFile(), 'regular file');
    const token = fs.readFileSync(file, 'utf8').trim();
    if (!token) throw new StartError(`the token file ${file} is empty`);
    return token;
  }
  const fromEnv = process.env[ENV.AUTH_TOKEN];
  if (fromEnv) return fromEnv;
  throw new StartError(
    socketPath
      ? `no token: no ${TOKEN_FILE_NAME} file beside ${socketPath}, no --token-file, no ${ENV.AUTH_TOKEN}`
      : `no token: give --token-file or set ${ENV.AUTH_TOKEN}`,
  );
}

function targetOf(values: Record<string, unknown>): RelayTarget {
  const socket = values['socket'] as string | undefined;
  const port = values['port'] as string | undefined;
  if ((socket === undefined) === (port === undefined)) throw new UsageError('give one of --socket PATH or --port P');
  if (values['reconnect'] === true && socket === undefined) throw new UsageError('--reconnect goes with --socket (a workspace socket)');
  if (socket !== undefined) {
    const socketPath = path.resolve(socket);
    // A workspace socket (--reconnect) may come later, and its folder be refused for a while: each dial is
    // checked as it comes (relay.ts), and the CLI's session waits meanwhile. One companion's socket is checked now.
    if (values['reconnect'] !== true) {
      const check = checkSocketToDial(socketPath);
      if (!check.ok) {
        if (check.absent) throw new StartError(`${socketPath}: not found`);
        throw new RefusedAtStart(check.reason);
      }
    }
    return { socketPath };
  }
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--port ${port}: not a port number`);
  return { port: n };
}

/**
 * Where messages go: --log, else stderr only when a person runs it (the CLI gives it a pipe for stdin, and its own
 * terminal for stderr). Without control characters: a line may echo a path or the companion's words, and a log is read in a terminal.
 */
function logger(file: string | undefined): (line: string) => void {
  if (file) {
    return (line) => {
      try {
        fs.appendFileSync(file, `${new Date().toISOString()} ide-companion connect[${process.pid}]: ${cleanText(line)}\n`, { mode: 0o600 });
      } catch {
        // A log that cannot be written must not stop the relay.
      }
    };
  }
  return process.stdin.isTTY ? toStderr : () => undefined;
}

const toStderr = (line: string): void => void process.stderr.write(`ide-companion connect: ${cleanText(line)}\n`);

/**
 * Why a dial is refused (shared/privateSocket.ts): in the log, and on stderr even under a CLI, once per reason:
 * another user may be trying to take the CLI's session, which the person must see, and once keeps it off the CLI's screen.
 */
function refusalReporter(log: (line: string) => void): (reason: string) => void {
  const said = new Set<string>();
  return (reason) => {
    if (said.has(reason) || said.size >= 32) return;
    said.add(reason);
    if (log !== toStderr) toStderr(`${REFUSED_DIAL}: ${reason}`);
    log(`${REFUSED_DIAL}: ${reason}`);
  };
}

export async function connect(argv: string[]): Promise<number> {
  const usage = usageOf(CONNECT_COMMAND_SPEC);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage);
    return EXIT.OK;
  }
  let log: (line: string) => void = logger(undefined);
  let refused = refusalReporter(log);
  try {
    const { values } = parseCommandArgs(CONNECT_COMMAND_SPEC, argv);
    log = logger(values['log'] as string | undefined);
    refused = refusalReporter(log);
    const map = PathMap.parse((values['map'] as string[] | undefined) ?? []);
    const target = targetOf(values);
    const reconnect = values['reconnect'] === true;
    // A workspace socket's companion adds its own token: none is read (nor mounted, nor copied over SSH).
    const token = reconnect ? undefined : readToken(values, 'socketPath' in target ? target.socketPath : undefined);
    return await runRelay({ target, token, map, log, refused, reconnect, remoteFiles: values['remote-files'] === true });
  } catch (err) {
    if (err instanceof RefusedAtStart) refused(err.message);
    else log(err instanceof Error ? err.message : String(err));
    if (err instanceof UsageError || err instanceof PathMapError) return EXIT.USAGE;
    if (err instanceof StartError) return EXIT.ERROR;
    throw err;
  }
}

/** Whether node was started on this file (the bundle), not the bin importing it. */
function isMainModule(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  connect(process.argv.slice(2)).then(
    (code) => process.exit(code),
    () => process.exit(EXIT.ERROR),
  );
}
