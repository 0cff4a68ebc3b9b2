/** What every end says as CLI sessions come and go: the words once. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionChangeWords } from '../src/editor/sessionWords.js';

test('an agent that appears is connected, one that goes disconnected; a second session of one agent says nothing', () => {
  assert.deepEqual(sessionChangeWords([], ['Claude Code']), ['Claude Code connected']);
  assert.deepEqual(sessionChangeWords(['Claude Code'], ['Claude Code', 'Claude Code']), []);
  assert.deepEqual(sessionChangeWords(['Claude Code', 'Gemini CLI'], ['Gemini CLI', 'Qwen Code']), ['Qwen Code connected', 'Claude Code disconnected']);
  assert.deepEqual(sessionChangeWords(['Gemini CLI', 'Gemini CLI'], []), ['Gemini CLI disconnected']);
});
