/**
 * Calls an optional editor action for a tool: bounded by the action's timeout
 * (a slow or dead editor fails the call with a clear error, never hangs it),
 * and the editor's answer checked against the action's result schema.
 */
import * as z from 'zod/mini';
import { EDITOR_ACTIONS, type ActionParams, type ActionResult, type Capability } from '@ide-companion/protocol';
import type { ToolEnvironment } from './toolDefinition.js';

export class EditorActionError extends Error {
  override name = 'EditorActionError';
}

/**
 * An argument left out is absent in what the editor is handed, never a key
 * holding undefined: msgpack has no undefined and sends nil (vim.NIL in
 * Neovim's Lua, truthy), so `{line: 4, column: undefined}` broke Neovim's openFile.
 */
function withoutAbsent<P>(params: P): P {
  if (params === null || typeof params !== 'object') return params;
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as P;
}

export async function askEditor<N extends Capability | 'closeFile' | 'reload' | 'writeBuffer'>(
  env: ToolEnvironment,
  name: N,
  params: ActionParams<N>,
): Promise<ActionResult<N>> {
  const editor = env.editor;
  const method = editor?.[name] as ((p: ActionParams<N>) => unknown) | undefined;
  if (!editor || !method) throw new EditorActionError(`the editor does not offer ${name}`);
  const { result } = EDITOR_ACTIONS[name];
  const timeoutMs = env.editorTimeoutMs ?? EDITOR_ACTIONS[name].timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EditorActionError(`the editor did not answer ${name} within ${timeoutMs / 1000} s`)), timeoutMs);
    // A call still out when the companion stops must not keep its process alive.
    timer.unref();
  });
  try {
    const answer = await Promise.race([Promise.resolve(method.call(editor, withoutAbsent(params))), timeout]);
    const parsed = (result as z.ZodMiniType).safeParse(answer ?? null);
    if (!parsed.success) throw new EditorActionError(`the editor's answer to ${name} is malformed: ${z.prettifyError(parsed.error)}`);
    return parsed.data as ActionResult<N>;
  } finally {
    clearTimeout(timer);
  }
}
