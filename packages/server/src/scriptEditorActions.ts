/**
 * The editor actions a script end answers, as the companion uses them (scriptHost.ts): the diffs, plus the
 * capabilities the end declared in `hello`, each one request over its framing. An end that declares
 * diagnosticItems hands its editor's lists over unshaped: the core shapes them.
 */
import type { ActionParams, EditorActionName } from '@ide-companion/protocol';
import { diagnosticsFromItems } from './diagnosticItems.js';
import { editorWithCapabilities, type EditorActions } from './editorActions.js';
import type { PositionIntake } from './positionIntake.js';
import type { ScriptFraming } from './scriptHost.js';

export function scriptEditorActions(
  framing: Pick<ScriptFraming, 'request'>,
  declared: readonly string[],
  state: { intake: () => PositionIntake | undefined; roots: () => readonly string[] | undefined },
): EditorActions {
  const request = <N extends EditorActionName>(action: N, params: ActionParams<N>) => framing.request(action, params);
  return editorWithCapabilities(
    {
      showDiff: async (diff, words) => {
        await request('showDiff', {
          diffId: diff.id,
          filePath: diff.filePath,
          newContent: diff.newContent,
          originalContent: diff.originalContent ?? null,
          agent: diff.agent,
          ...(words && { words }),
          ...(diff.kept && { kept: true }),
        });
      },
      diffText: async (diff) => (await request('diffText', { diffId: diff.id })).text ?? undefined,
      closeDiff: async (diff, reason, message) => {
        await request('closeDiff', { diffId: diff.id, reason, ...(message !== undefined && { message }) });
      },
    },
    {
      openFile: async (params) => {
        await request('openFile', params);
        // After its answer: a position the end sent before the move has come in by then (one ordered stream) and cannot undo it.
        state.intake()?.expectMove();
      },
      getOpenEditors: () => request('getOpenEditors', {}),
      // Once the cursor moved on from a selection none is left (positionIntake.ts), whatever marks the editor keeps.
      getSelection: async () => (state.intake()?.noSelection ? { selection: null } : request('getSelection', {})),
      getDiagnostics: declared.includes('diagnosticItems')
        ? async (params) => diagnosticsFromItems((await request('diagnosticItems', {})).items, params.path, state.roots())
        : (params) => request('getDiagnostics', params),
      checkDocumentDirty: (params) => request('checkDocumentDirty', params),
      saveDocument: (params) => request('saveDocument', params),
      closeFile: async (params) => {
        await request('closeFile', params);
      },
      reload: async (params) => {
        await request('reload', params);
      },
    },
    declared,
  );
}
