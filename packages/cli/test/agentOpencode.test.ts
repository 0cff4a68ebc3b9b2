/**
 * `ide-companion agent -- opencode acp` with the real opencode (pinned, .tools/opencode), offline against
 * our OpenAI-compatible mock on loopback, beside a real companion. opencode edits without asking by default
 * (and then writes the file itself: no review is possible); with `"permission": {"edit": "ask"}` in its
 * config it asks permission with the whole file as the tool call's `diff`, then writes through
 * fs/write_text_file: the diff opens once in the editor, at the permission. Checked: the selection reaches
 * the model's request; an edited accept lands the user's bytes; a reject leaves the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findOpencode, OPENCODE_AGENT_PROMPT, opencodeCommand, opencodeEnv, skipUnless, startOpenAiMock } from '@ide-companion/testkit';
import { writeReviewTests } from './support/acpWriteRuns.js';

const opencode = findOpencode();
const skip = skipUnless(opencode !== undefined, 'the pinned opencode (.tools/opencode)', 'run scripts/install-opencode.sh or .ci/run');

writeReviewTests('opencode acp', /\[agent: OpenCode/, skip, async ({ file, home }, after) => {
  const mock = await startOpenAiMock(
    [{ tool: 'read', args: { filePath: file } }, { tool: 'write', args: { filePath: file, content: 'new\n' } }, { text: after }],
    OPENCODE_AGENT_PROMPT,
  );
  // The config (model on the mock, nothing past loopback) as testkit writes it for the TUI tests, with edits asked.
  opencodeCommand(opencode!, { home, baseUrl: mock.baseUrl });
  const config = path.join(home, 'opencode.json');
  fs.writeFileSync(config, JSON.stringify({ ...(JSON.parse(fs.readFileSync(config, 'utf8')) as object), permission: { edit: 'ask' } }));
  return { args: ['--', opencode!.binary, 'acp'], env: opencodeEnv(home, config), mock };
});
