/**
 * The pinned claude-agent-acp (Zed's ACP adapter for Claude Code, issue 38), installed by
 * scripts/install-claude-agent-acp.sh into .tools/claude-agent-acp (or CLAUDE_AGENT_ACP_DIR;
 * never committed), and what a test needs to run it offline: a private HOME for Claude Code
 * (makeClaudeHome), the model on loopback (anthropicMock.ts) with a test API key, and
 * nothing that reaches past loopback.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { claudeOfflineEnv } from './claudeCode.js';

export interface ClaudeAgentAcpInstall {
  /** Its entry point, run with node (the bin of the package). */
  script: string;
  version: string;
}

export function findClaudeAgentAcp(): ClaudeAgentAcpInstall | undefined {
  const pkg = join(process.env['CLAUDE_AGENT_ACP_DIR'] ?? join(repoRoot, '.tools', 'claude-agent-acp'), 'node_modules', '@zed-industries', 'claude-agent-acp');
  const script = join(pkg, 'dist', 'index.js');
  if (!existsSync(script)) return undefined;
  try {
    const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
    return { script, version };
  } catch {
    return undefined;
  }
}

/** The adapter's environment: `base` (the test's) with HOME, the mock model, and egress past loopback failing at once. */
export function claudeAgentAcpEnv(base: NodeJS.ProcessEnv, options: { home: string; baseUrl: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // Claude Code's config goes in HOME (makeClaudeHome's ~/.claude.json); none of the machine's credentials.
  // IS_SANDBOX (root in a sandbox, as this machine's) makes the adapter offer bypassPermissions, and with it
  // set 0.23.1's session/new fails ("Query closed before response received"): measured here, so it is unset.
  for (const key of ['CLAUDE_CONFIG_DIR', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_EXECUTABLE', 'CLAUDECODE', 'IS_SANDBOX'])
    delete env[key];
  return { ...env, ...claudeOfflineEnv(options) };
}
