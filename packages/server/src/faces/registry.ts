/**
 * Every agent's face, as `tools/` lists the tools: one line each. The
 * companion makes the faces of the agents asked for from this list and names
 * none of them; Gemini CLI's face is the companion's core (its port, token
 * and discovery file) and has no line.
 */
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { FaceDefinition } from './agentFace.js';
import { ampFace, type AmpFaceSettings } from './ampEntry.js';
import { claudeFace } from './claudeEntry.js';
import { codexFace } from './codexEntry.js';
import { copilotFace } from './copilotEntry.js';
import { droidFace } from './droid/droidEntry.js';
import { qwenFace } from './qwenEntry.js';

export const FACES: readonly FaceDefinition<never>[] = [qwenFace, claudeFace, copilotFace, codexFace, ampFace, droidFace];

/** The user's choices for the faces that take some (CompanionOptions.faceSettings). */
export interface FaceSettings {
  amp?: AmpFaceSettings;
}

/** The face definition of `agent`; undefined for Gemini CLI's, the core. */
export function faceDefinition(agent: AgentName): FaceDefinition<object> | undefined {
  return FACES.find((f) => f.agent === agent) as FaceDefinition<object> | undefined;
}
