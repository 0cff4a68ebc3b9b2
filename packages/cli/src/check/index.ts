export { runCheck, type CheckOptions } from './suite.js';
export { CHECKS, type CheckId, type CheckGroup, type CheckDefinition } from './catalogue.js';
export { exitCodeOf, type CheckReport, type CheckResult, type CheckStatus } from './report.js';
export { formatReport } from './format.js';
export { CHECK_PROPOSAL_LABEL, DEFAULT_TIMEOUTS, type CheckTimeouts } from './checkRun.js';
export { estimateTokenBits, nonLoopbackAddresses } from './securityChecks.js';
