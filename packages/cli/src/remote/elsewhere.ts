/**
 * For `doctor`: is this CLI elsewhere than its editor (a container, its own
 * --sandbox, an SSH session), and if so what to run on the editor's machine.
 * The same-container case (the editor's companion in this container) keeps
 * its own hint: export REMOTE_CONTAINERS=1 (packages/protocol containerHost).
 */
import * as os from 'node:os';
import type { DiscoveryResult } from '@ide-companion/client/discovery';

export interface ElsewhereFinding {
  ok: boolean | undefined;
  text: string;
  advice?: string;
}

/** Whether the chosen discovery file sends the CLI through a relay (no port, a stdio command). */
function throughRelay(d: DiscoveryResult): string | undefined {
  const stdio = d.chosen?.config?.['stdio'] as { command?: unknown; args?: unknown } | undefined;
  if (d.chosen?.port !== undefined || !stdio || typeof stdio.command !== 'string') return undefined;
  return [stdio.command, ...(Array.isArray(stdio.args) ? stdio.args.map(String) : [])].join(' ');
}

export function elsewhereFinding(d: DiscoveryResult, env: NodeJS.ProcessEnv): ElsewhereFinding | undefined {
  const relay = throughRelay(d);
  if (relay) return { ok: true, text: `the CLI reaches the editor through the relay, over stdio: ${relay} (docs/remote.md)` };
  if (d.chosen?.workspace?.ok) return undefined;
  const folder = d.realCwd;
  if (env['SANDBOX']) {
    return {
      ok: false,
      text: `in gemini's own sandbox (${env['SANDBOX']}), and no companion serves ${folder} here`,
      advice:
        'Leave the sandbox; on your machine, in the project: eval "$(ide-companion sandbox)" && gemini (GEMINI_SANDBOX from the exports starts the sandbox; --sandbox would pick docker over it)',
    };
  }
  if (d.host.inContainer && !env['SSH_CONNECTION']) {
    return {
      ok: false,
      text: `in a container (${d.host.containerMarker}), and no companion serves ${folder} here`,
      advice:
        'If your editor runs outside this container, start the container from the project on that machine (before or after the editor): ' +
        'podman run --rm -it $(ide-companion container --podman) IMAGE gemini (or --docker). ' +
        'If the editor runs in this container too, start its companion for this folder.',
    };
  }
  const ssh = env['SSH_CONNECTION'];
  if (ssh) {
    const from = ssh.split(' ')[0];
    return {
      ok: false,
      text: `in an SSH session (from ${from}), and no companion serves ${folder} on this machine`,
      advice: `On the machine where your editor runs, in the project: ide-companion ssh ${os.userInfo().username}@${os.hostname()} --remote-path ${folder}`,
    };
  }
  return undefined;
}
