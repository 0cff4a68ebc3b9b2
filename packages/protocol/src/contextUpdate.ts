/** `ide/contextUpdate`: companion -> CLI, the editor's context. */
import { IdeContextSchema } from './ideContext.js';
import { notificationType } from './message.js';

export const ContextUpdateNotification = notificationType('ide/contextUpdate', 'companionToCli', IdeContextSchema, [
  ['workspaceState', 'openFiles', '*', 'path'],
]);
