/**
 * The agents' own environment variables and folders, for the modules that
 * need no schema (shared/agentPaths.ts, read by `doctor` and `list`): a
 * subpath of its own, as `codexFrames`, because the protocol's index sets
 * zod's locale on import, and those commands start without zod.
 */
export { AMP_ENV } from './amp.js';
export { CLAUDE_ENV } from './claude.js';
export { DROID_IDE_DIR } from './droid.js';
