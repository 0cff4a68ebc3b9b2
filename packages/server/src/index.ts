export { COMPANION_VERSION } from '@ide-companion/shared/version';
export { Companion } from './companion.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_SESSION_GRACE_MS, DEFAULT_STREAM_GRACE_MS, DEFAULT_MAX_SESSIONS, type CompanionOptions } from './companionOptions.js';
export { CONTEXT_SEED_WAIT_MS } from './contextSeed.js';
export { ContextTracker, type ContextTrackerOptions, type FocusDetails } from './contextTracker.js';
export { truncateSelectedText } from './contextInput.js';
export { EXISTENCE_RECHECK_MS } from './fileExistence.js';
export { Coalescer, realScheduler, type CoalescerOptions, type Scheduler } from './coalescer.js';
export { DiffCoordinator, DiffError } from './diffCoordinator.js';
export {
  capabilitiesOf,
  editorWithCapabilities,
  type CapabilityActions,
  type DiffActions,
  type EditorActions,
  type PendingDiff,
  shownPathOf,
  type DiffCloseReason,
} from './editorActions.js';
export { applyEditorEvent, parseEditorEvent, EditorEventError } from './editorEvents.js';
export { TOOLS, availableTools } from './tools/index.js';
export {
  DiscoveryFileError,
  DiscoveryFileHandle,
  ensureDiscoveryDir,
  isProcessAlive,
  sweepStaleDiscoveryFiles,
  writeFileAtomicPrivate,
} from './discoveryFile.js';
export { generateAuthToken, bearerChecker } from './auth.js';
export { buildTerminalEnv, type TerminalEnv } from './terminalEnv.js';
export { silentLogger, describeError, jsonLinesLogger, humanLogger, type Logger } from './logger.js';
export type { SessionInfo } from './sessions.js';
