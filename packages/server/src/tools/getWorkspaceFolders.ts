/** getWorkspaceFolders: the roots the companion serves, from the context tracker (no editor round trip). */
import { GetWorkspaceFoldersTool } from '@ide-companion/protocol';
import { defineTool, jsonResult } from './toolDefinition.js';

export const getWorkspaceFolders = defineTool({
  tool: GetWorkspaceFoldersTool,
  async handler(_args, env) {
    return jsonResult(GetWorkspaceFoldersTool, { folders: [...env.context.getRoots()] });
  },
});
