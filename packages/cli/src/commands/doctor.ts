/**
 * `ide-companion doctor`: would `gemini` started in this folder connect to an
 * IDE, and if not, why, in words a user can act on. It follows the real CLI's
 * steps (IDE process, discovery files, workspace, IDE detection, host) and
 * then makes a real connection attempt to the targets the CLI would dial.
 */
import { discoverCompanion, withOurInstallHint, redactDiscovery, type DiscoveryResult } from '@ide-companion/client/discovery';
import { detectEditor } from '@ide-companion/client/ideDetection';
import { agentsServed, declaredAgents } from '@ide-companion/client/companions';
import { AGENT_CONNECT_HINTS, servedAgentNames, userHasCodex } from '@ide-companion/shared/agentPaths';
// Imported, not import()ed: a lazy module's imports are bundled lazily too, the whole protocol (and zod) with them.
import { probeCodex } from '@ide-companion/client/codexProbe';
import { doctorNotes, findInstaller } from '../editors.js';

/** The `ide-companion install` id for an editor, if it has an installer: the one place doctor looks installers up. */
async function installerIdFor(editorName: string): Promise<string | undefined> {
  return (await findInstaller(editorName))?.id;
}
import { ENV, LOOPBACK_HOST, containerHintFor } from '@ide-companion/protocol';
import { notServedLines } from './notServed.js';
import type { Command } from './types.js';
import { DOCTOR_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, common, mark, print, printJson, runWithExitCodes } from '../client/output.js';
import { elsewhereFinding } from '../remote/elsewhere.js';

const usage = usageOf(DOCTOR_SPEC);

interface Finding {
  ok: boolean | undefined;
  topic: string;
  text: string;
  advice?: string;
}

export const doctorCommand: Command = {
  name: 'doctor',
  usage,
  run: (argv) =>
    runWithExitCodes('doctor', usage, async () => {
      const { values } = parseCommandArgs(DOCTOR_SPEC, argv);
      const c = common(values);
      const d = await discoverCompanion({ cwd: c.cwd, wellKnownPorts: false });
      const findings = await examine(d);
      for (const note of await doctorNotes(process.env)) findings.push({ ok: note.ok, topic: note.editor, text: note.text, advice: note.advice });
      const codex = await codexFinding(d.realCwd);
      if (codex) findings.push(codex);
      let connected = false;
      let tools: string[] = [];
      if (!d.problem) {
        // The real attempt: the CLI's targets only (no well-known ports), the CLI's handshake.
        // The client is loaded only here: without a companion to dial, doctor's start parses none of it.
        const { makeClient } = await import('../client/makeClient.js');
        const client = makeClient(c, { ideProcess: d.ideProcess, wellKnownPorts: false, dialLocalCompanion: false });
        connected = await client.connect();
        tools = client.tools;
        for (const a of client.attempts) {
          findings.push({
            ok: a.ok,
            topic: 'reachability',
            text: a.ok ? `${a.target}: connected (MCP handshake and tools/list done)` : `${a.target}: ${a.error}`,
            advice: a.ok ? undefined : adviceForFailure(a.error ?? '', d),
          });
        }
        if (connected) {
          const diffing = client.isDiffingEnabled();
          findings.push({
            ok: diffing ? true : undefined,
            topic: 'tools',
            text: `tools offered: ${tools.join(', ') || 'none'}; diffs in the IDE ${diffing ? 'enabled' : 'disabled (needs openDiff and closeDiff)'}`,
          });
        }
        await client.stop();
      }
      const ideOk = d.ide !== undefined;
      const wouldConnect = connected && ideOk;
      const verdict = wouldConnect
        ? `gemini started in ${d.realCwd} would connect to ${d.ide!.displayName}.`
        : `gemini started in ${d.realCwd} would NOT connect to an IDE.`;
      if (c.json) {
        printJson({ wouldConnect, verdict, findings, discovery: redactDiscovery(d), tools });
      } else {
        const lines = [verdict, ''];
        for (const f of findings) {
          lines.push(mark(f.ok, `[${f.topic}] ${f.text}`));
          if (f.advice) lines.push(`    → ${f.advice}`);
        }
        print(lines.join('\n'));
      }
      return wouldConnect ? EXIT.OK : EXIT.NO;
    }),
};

/** What Codex CLI's /ide here would get (its IPC socket, asked as 0.171.0 asks); nothing when no socket is there and the user has no Codex. */
async function codexFinding(cwd: string): Promise<Finding | undefined> {
  const probe = await probeCodex(cwd);
  if (probe.state === 'absent') return userHasCodex() ? { ok: undefined, topic: 'codex', text: probe.detail } : undefined;
  const advice =
    probe.ok === false ? 'Open this folder in an editor whose companion serves Codex CLI (its `agents` option, or IDE_COMPANION_AGENTS=codex).' : undefined;
  // Said, never failed: doctor is about the agent in this terminal; Codex's socket is another's.
  return { ok: probe.ok === true ? true : undefined, topic: 'codex', text: `Codex CLI's /ide: ${probe.detail}`, advice };
}

async function examine(d: DiscoveryResult): Promise<Finding[]> {
  const out: Finding[] = [];
  const uid = process.getuid?.();
  out.push({
    ok: undefined,
    topic: 'ide process',
    text: `IDE PID ${d.ideProcess.pid} (${d.ideProcess.source === 'env' ? `from ${ENV.IDE_PID}` : 'from the process tree: grandparent of the first shell above gemini'})${d.ideProcess.command ? `: ${d.ideProcess.command.slice(0, 120)}` : ''}`,
  });
  const editor = detectEditor(process.env, d.ideProcess.command);
  const installerId = editor ? await installerIdFor(editor.name) : undefined;
  const startAdvice = installerId
    ? `Start ${editor!.displayName} with its companion (install it with: ide-companion install ${installerId}), or run \`ide-companion serve\`.`
    : 'Start the IDE with its companion enabled (or run `ide-companion serve`).';
  if (d.dirError) out.push({ ok: false, topic: 'discovery', text: d.dirError, advice: startAdvice });
  else if (d.files.length === 0) out.push({ ok: false, topic: 'discovery', text: `no discovery files in ${d.dir}`, advice: startAdvice });
  for (const f of d.files) {
    const owner =
      f.ownerUid === undefined ? 'owner unknown' : f.ownedByUser ? `owned by you (uid ${f.ownerUid})` : `owned by uid ${f.ownerUid}, not you (uid ${uid})`;
    const state = f.alive ? `PID ${f.pid} running` : `PID ${f.pid} not running (stale)`;
    const ws = f.workspace
      ? f.workspace.ok
        ? 'workspace contains this folder'
        : `workspace does not contain this folder (roots: ${f.workspace.roots.join(', ') || 'none'})`
      : '';
    const chosen = d.chosen === f ? ' ← the CLI picks this one' : '';
    const problems = [f.unusable, f.contractError ? `does not follow the contract (${f.contractError})` : undefined].filter(Boolean).join('; ');
    let advice: string | undefined;
    if (!f.ownedByUser && f.ownerUid !== undefined) advice = 'The CLI ignores files of other users: run gemini as the same user as the IDE.';
    else if (!f.alive) advice = `Stale: its IDE is gone. Delete ${f.path} (our companions also sweep these on start).`;
    else if (f.unusable) advice = 'The companion wrote a broken file: restart the IDE or its companion.';
    out.push({
      ok: !f.unusable && f.alive && f.workspace?.ok,
      topic: 'discovery',
      text: `${f.fileName}: ${owner}, ${state}${f.port !== undefined ? `, port ${f.port}` : ''}${ws ? `, ${ws}` : ''}${problems ? `; ${problems}` : ''}${chosen}`,
      advice,
    });
  }
  if (d.chosen) out.push({ ok: undefined, topic: 'choice', text: `chosen ${d.chosen.fileName}: ${d.chosenBecause}` });
  if (d.chosen?.port !== undefined) {
    const declared = declaredAgents(d.chosen.config);
    const agents = declared?.served ?? agentsServed(d.chosen.port, d.chosen.pid);
    // How each served agent finds it from a terminal of the folder, in serve's words (one table for both).
    const hints = agents.flatMap((agent) => (agent === 'gemini' ? [] : [AGENT_CONNECT_HINTS[agent]]));
    out.push({
      ok: undefined,
      topic: 'agents',
      text: `it serves ${servedAgentNames(agents).join(', ')}${hints.length > 0 ? ` (${hints.join('; ')})` : ''}`,
    });
    // Each agent it does not serve, and why (its discovery file says; an older companion's says nothing).
    for (const text of notServedLines(declared?.notServed ?? {})) out.push({ ok: undefined, topic: 'agents', text });
  }

  if (d.workspace.ok) {
    out.push({
      ok: true,
      topic: 'workspace',
      text: `${d.realCwd} is inside the IDE's workspace (roots: ${d.workspace.roots.join(', ')}; from ${d.workspaceSource === 'env' ? ENV.WORKSPACE_PATH : 'the discovery file'})`,
    });
  } else {
    out.push({
      ok: false,
      topic: 'workspace',
      text: withOurInstallHint(d.workspace.error ?? 'workspace check failed'),
      advice:
        d.workspace.roots.length > 0
          ? `Run gemini from one of: ${d.workspace.roots.join(', ')} (or a folder inside one), or open ${d.realCwd} in the IDE.`
          : d.workspacePath === ''
            ? 'Open a folder in the IDE.'
            : undefined,
    });
  }
  const relay = d.chosen?.port === undefined && d.chosen?.config?.['stdio'] !== undefined;
  const stdioArgs = (d.chosen?.config?.['stdio'] as { args?: unknown } | undefined)?.args;
  const reconnecting = Array.isArray(stdioArgs) && stdioArgs.includes('--reconnect');
  out.push(
    relay
      ? {
          ok: true,
          topic: 'token',
          text: reconnecting
            ? "no token in the file, none needed here: the relay dials a workspace socket, and the workspace socket's companion adds its own"
            : 'no token in the file: the relay reads it beside the socket it dials',
        }
      : d.authToken
        ? { ok: true, topic: 'token', text: `auth token present (from ${d.tokenSource === 'env' ? ENV.AUTH_TOKEN : 'the discovery file'})` }
        : {
            ok: d.chosen ? false : undefined,
            topic: 'token',
            text: `no auth token (none in the file, no ${ENV.AUTH_TOKEN})`,
            advice: d.chosen ? 'A companion without a token is refused by ours and accepted by few: restart the companion.' : undefined,
          },
  );
  if (d.ide) {
    out.push({ ok: true, topic: 'ide detection', text: `the CLI will call the IDE "${d.ide.displayName}" (${d.ide.evidence})` });
  } else {
    const guess = editor;
    out.push({
      ok: false,
      topic: 'ide detection',
      text: `the CLI will say "IDE integration is not supported in your current environment": no ideInfo in a discovery file and TERM_PROGRAM=${process.env['TERM_PROGRAM'] ?? '(unset)'} is not VS Code, Sublime, Zed, Xcode or JetBrains${guess ? ` (this looks like ${guess.displayName})` : ''}`,
      advice: installerId
        ? `Install and start the ${guess!.displayName} companion (ide-companion install ${installerId}); it writes ideInfo, which lets the CLI in.`
        : 'Use a companion that writes ideInfo in its discovery file (all of ours do), started for this folder.',
    });
  }
  const h = d.host;
  const elsewhere = elsewhereFinding(d, process.env);
  // The same-container hint only where no companion-elsewhere advice says more, and not through the relay, which dials no host.
  out.push(
    relay
      ? { ok: true, topic: 'host', text: 'no host to dial: the CLI starts the relay over stdio' }
      : {
          ok: h.inContainer && h.host !== LOOPBACK_HOST ? undefined : true,
          topic: 'host',
          text: h.reason,
          advice: elsewhere?.ok === false ? undefined : containerHintFor(h),
        },
  );
  if (elsewhere) out.push({ ...elsewhere, topic: 'elsewhere' });
  return out;
}

function adviceForFailure(error: string, d: DiscoveryResult): string {
  // The relay at the stable address is there, the editor is not (connect --reconnect, docs/remote.md).
  if (/no editor companion serves/.test(error))
    return 'Start your editor (or `ide-companion serve`) in the project on its machine: nothing here needs changing; a gemini running here goes on by itself, a new one connects.';
  if (/401|403|Unauthorized|Forbidden/i.test(error))
    return 'The token was refused: the discovery file may be left over from an earlier run of the companion; restart the IDE companion.';
  if (/ECONNREFUSED|fetch failed/i.test(error)) {
    return d.host.host !== LOOPBACK_HOST
      ? `Nothing answered on ${d.host.host}: if the IDE runs in this container, run \`export REMOTE_CONTAINERS=1\` before gemini.`
      : 'Nothing listens on that port: the companion is not running (stale file); restart the IDE or its companion.';
  }
  if (/ENOTFOUND|EAI_AGAIN/i.test(error))
    return `${d.host.host} does not resolve here: if the IDE runs in this container, run \`export REMOTE_CONTAINERS=1\` before gemini.`;
  if (/timed out/i.test(error)) return 'The companion did not answer in time: is the IDE frozen or the port taken by another program?';
  return 'See the error above; restart the IDE companion and run doctor again.';
}
