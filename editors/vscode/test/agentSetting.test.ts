/**
 * The `ideCompanion.agents` setting (package.json, static for vsce) lists
 * every agent the host knows (shared/agentPaths.ts AGENTS, and the agents
 * that borrow a face): a new agent fails here until package.json names it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_DISPLAY_NAMES, AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';

// dist/test/ -> the extension's folder.
const PACKAGE_JSON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package.json');

interface AgentsSetting {
  items: { enum: string[] };
  description: string;
}

test('ideCompanion.agents offers every agent the host knows, and its description names each', () => {
  const pkg = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { contributes: { configuration: { properties: Record<string, AgentsSetting> } } };
  const setting = pkg.contributes.configuration.properties['ideCompanion.agents'];
  assert.ok(setting, 'package.json has ideCompanion.agents');
  assert.deepEqual([...setting.items.enum].sort(), [...AGENTS, ...Object.keys(FACE_OF)].sort(), 'the enum is AGENTS and the borrowers (shared/agentPaths.ts)');
  const unnamed = Object.values(AGENT_DISPLAY_NAMES).filter((name) => !setting.description.includes(name));
  assert.deepEqual(unnamed, [], 'the description names every agent');
});
