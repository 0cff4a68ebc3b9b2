/**
 * Every editor end with an installer (editors/*), in one registry: `install`,
 * `uninstall` and `doctor` reach the ends only through here. An end is loaded
 * when a command needs it, so `status` never loads Neovim's host code. A new
 * editor adds one line. (The ends' commands, `serve` and `bridge`, are in
 * commands/index.ts.)
 */
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { type DoctorNote, type EditorEnd, type EditorInstaller } from '@ide-companion/command/editorEnd';

interface EditorEntry {
  id: string;
  load(): Promise<EditorEnd>;
}

export const EDITOR_ENDS: readonly EditorEntry[] = [
  { id: 'neovim', load: async () => (await import('@ide-companion/neovim/end')).neovimEnd },
  { id: 'emacs', load: async () => (await import('@ide-companion/emacs')).emacsEnd },
  { id: 'vim', load: async () => (await import('@ide-companion/vim')).vimEnd },
  { id: 'micro', load: async () => (await import('@ide-companion/micro')).microEnd },
  { id: 'kakoune', load: async () => (await import('@ide-companion/kakoune')).kakouneEnd },
  { id: 'vscode', load: async () => (await import('ide-companion-vscode')).vscodeEnd },
  // Not an editor: the Gemini CLI extension of `ide-companion mcp`, here so that `install gemini` finds it.
  { id: 'gemini', load: async () => (await import('./mcp/geminiInstaller.js')).geminiExtensionEnd },
];

export async function loadEditorEnds(): Promise<EditorEnd[]> {
  return Promise.all(EDITOR_ENDS.map((e) => e.load()));
}

export interface Installable extends EditorInstaller {
  id: string;
  displayName: string;
  aliases: readonly string[];
}

/** The ends that have an installer. */
export async function installers(): Promise<Installable[]> {
  return (await loadEditorEnds()).flatMap((end) =>
    end.installer ? [{ ...end.installer, id: end.id, displayName: end.displayName, aliases: end.aliases ?? [] }] : [],
  );
}

/** An installer by id, display name or alias (a fork's name), case-insensitively. */
export async function findInstaller(name: string): Promise<Installable | undefined> {
  const wanted = name.trim().toLowerCase();
  return (await installers()).find((i) => [i.id, i.displayName, ...i.aliases].some((n) => n.toLowerCase() === wanted));
}

/** What the editor ends have to say to `doctor` about this machine. */
export async function doctorNotes(env: NodeJS.ProcessEnv): Promise<Array<DoctorNote & { editor: string }>> {
  const ends = await loadEditorEnds();
  const versions = await Promise.all(ends.map((end) => end.installer?.installedVersion?.({ env }).catch(() => undefined)));
  return ends.flatMap((end, i) => {
    const notes = (end.doctorNotes?.(env) ?? []).map((note) => ({ ...note, editor: end.displayName }));
    const installed = versions[i];
    // An upgrade of this command leaves the editors' copies as they were until the next install.
    if (installed && installed !== COMPANION_VERSION) {
      notes.push({
        ok: false,
        editor: end.displayName,
        text: `what ide-companion installed for ${end.displayName} is version ${installed}, this ide-companion is ${COMPANION_VERSION}`,
        advice: `ide-companion install ${end.id}`,
      });
    }
    return notes;
  });
}
