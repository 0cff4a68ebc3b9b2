/**
 * Every agent's face of an end's companion, one entry an agent: how the agent
 * finds and connects to it, how it reads the context, hears "Send to agent",
 * reads diagnostics, asks a diff and hears the user's answer, each over the
 * agent's own wire (testkit's clients of it). The face scenarios
 * (faceScenarios.ts) are written once over this table, so a new agent is one
 * entry here; what an agent lacks is said with why.
 */
import { amp } from './faceAmp.js';
import { droid } from './faceDroid.js';
import { gemini, qwen } from './faceMcp.js';
import { claudeLike, codex, copilot } from './faceSockets.js';
import type { FaceEntry } from './faceWire.js';

export * from './faceWire.js';
export { connectAmp, readAmpLock } from './faceAmp.js';
export { readDroidLock } from './faceDroid.js';

/** Every agent's face: one entry an agent (opencode is Claude Code's face, dialed as opencode dials it). */
export const FACES: readonly FaceEntry[] = [
  gemini,
  qwen,
  claudeLike('Claude Code', {}, {}),
  claudeLike(
    'opencode',
    { protocol: null, clientName: 'opencode' },
    {
      diagnostics: 'opencode calls no tool of the IDE: it only listens',
      diffs: 'opencode calls no tool of the IDE: it only listens (its own edits are its)',
    },
  ),
  copilot,
  codex,
  amp,
  droid,
];
