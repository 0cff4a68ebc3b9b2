/** Every tool a companion may offer, in the order `tools/list` shows them. */
import { CheckDocumentDirtyTool } from './checkDocumentDirty.js';
import { CloseDiffTool } from './closeDiff.js';
import { GetActiveFileTool } from './getActiveFile.js';
import { GetDiagnosticsTool } from './getDiagnostics.js';
import { GetOpenEditorsTool } from './getOpenEditors.js';
import { GetSelectionTool } from './getSelection.js';
import { GetWorkspaceFoldersTool } from './getWorkspaceFolders.js';
import { OpenDiffTool } from './openDiff.js';
import { OpenFileTool } from './openFile.js';
import { SaveDocumentTool } from './saveDocument.js';

export const COMPANION_TOOLS = [
  OpenDiffTool,
  CloseDiffTool,
  GetActiveFileTool,
  GetWorkspaceFoldersTool,
  GetDiagnosticsTool,
  GetOpenEditorsTool,
  GetSelectionTool,
  OpenFileTool,
  CheckDocumentDirtyTool,
  SaveDocumentTool,
] as const;

export type CompanionToolName = (typeof COMPANION_TOOLS)[number]['name'];
