export { Companion, COMPANION_VERSION, DEFAULT_MAX_BODY_BYTES, DEFAULT_SESSION_GRACE_MS, DEFAULT_STREAM_GRACE_MS, DEFAULT_MAX_SESSIONS, type CompanionOptions } from './companion.js';
export { ContextTracker, truncateSelectedText, type ContextTrackerOptions, type FocusDetails } from './contextTracker.js';
export { Coalescer, type CoalescerOptions } from './coalescer.js';
export { DiffCoordinator, DiffError } from './diffCoordinator.js';
export type { DiffView, PendingDiff, DiffCloseReason } from './diffView.js';
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
export { silentLogger, describeError, type Logger } from './logger.js';
export type { SessionInfo } from './sessions.js';
export { JsonLinesBridge } from './bridge/jsonLinesBridge.js';
export { EditorMessageSchema, type EditorMessage, type HostMessage } from './bridge/messages.js';
