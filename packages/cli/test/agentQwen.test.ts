/**
 * `ide-companion agent -- qwen --acp` with the real Qwen Code (pinned, .tools/qwen-code), offline against
 * our OpenAI-compatible mock on loopback, beside a real companion. In `--approval-mode default` Qwen asks
 * permission for a write with the edit as the tool call's `diff`, then writes through fs/write_text_file,
 * as Gemini does: the diff opens once in the editor, at the permission. Checked at the model: the selection
 * reaches its request; an edited accept lands the user's bytes; a reject leaves the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findQwenCode, makeQwenHome, proposeWriteTurns, qwenArgv, skipUnless, startOpenAiMock } from '@ide-companion/testkit';
import { writeReviewTests } from './support/acpWriteRuns.js';

const qwen = findQwenCode();
const skip = skipUnless(qwen !== undefined, 'the pinned Qwen Code (.tools/qwen-code)', 'run scripts/install-qwen-code.sh or .ci/run');

writeReviewTests('qwen --acp', /\[agent: Qwen Code/, skip, async ({ file, home }, after) => {
  const turns = proposeWriteTurns(file, 'new\n');
  turns[2] = { text: after };
  const mock = await startOpenAiMock(turns);
  // Qwen's own IDE mode off (as Gemini's in agentGemini.test.ts): under `agent` we are its IDE.
  const qwenHome = makeQwenHome(path.join(home, '.qwen'));
  fs.writeFileSync(
    path.join(qwenHome, 'settings.json'),
    JSON.stringify({ ide: { enabled: false }, general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false } }),
  );
  return { args: ['--', ...qwenArgv(qwen!, mock.baseUrl), '--acp', '--approval-mode', 'default'], env: { QWEN_HOME: qwenHome }, mock };
});
