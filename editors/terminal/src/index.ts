/** The terminal editor end: `ide-companion serve`, for editors with no plugin (Helix, Kakoune, nano, micro...). */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { SERVE_IDE_INFO, serveCommand } from './serveCommand.js';

export { SERVE_IDE_INFO, serveCommand } from './serveCommand.js';
export { TerminalReview } from './terminalReview.js';

export const terminalEnd: EditorEnd = { id: 'terminal', displayName: SERVE_IDE_INFO.displayName, commands: [serveCommand] };
