/**
 * The editor's context as prompt blocks: what Gemini CLI's IDE mode adds to a
 * turn (active file, cursor, selection, other open files), in the blocks the
 * agent's promptCapabilities allow. A text block always (every agent takes
 * text); the selection also as an embedded resource when the agent declares
 * `embeddedContext`, so it arrives as the file's text rather than as prose.
 */
import { pathToFileURL } from 'node:url';
import type { IdeContext } from '@ide-companion/protocol';
import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';

/** Other open files named, newest first (the CLI's own cap). */
const MAX_OTHER_FILES = 10;

/** The blocks that carry `context` (none when there is no open file), to put before the user's text. */
export function contextBlocks(context: IdeContext | undefined, capabilities: PromptCapabilities | undefined): ContentBlock[] {
  const files = context?.workspaceState?.openFiles ?? [];
  if (files.length === 0) return [];
  const active = files[0]?.isActive ? files[0] : undefined;
  const others = files.filter((f) => f !== active).slice(0, MAX_OTHER_FILES);
  const lines = ["Here is the user's editor context. Use it when it helps with the request; do not mention it otherwise."];
  if (active) {
    lines.push(`Active file: ${active.path}`);
    if (active.cursor) lines.push(`Cursor: line ${active.cursor.line}, character ${active.cursor.character}`);
    if (active.selectedText && !capabilities?.embeddedContext) lines.push('Selected text:', '```', active.selectedText, '```');
    else if (active.selectedText) lines.push('The selected text follows as a resource.');
  }
  if (others.length > 0) lines.push('Other open files:', ...others.map((f) => `- ${f.path}`));
  const blocks: ContentBlock[] = [{ type: 'text', text: lines.join('\n') }];
  if (active?.selectedText && capabilities?.embeddedContext) {
    const uri = pathToFileURL(active.path).href + (active.cursor ? `#L${active.cursor.line}` : '');
    blocks.push({ type: 'resource', resource: { uri, text: active.selectedText, mimeType: 'text/plain' } });
  }
  return blocks;
}
