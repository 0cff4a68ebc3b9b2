/** The Neovim editor end as the registry of ends loads it (`install`, `doctor`): its installer, without the host's modules. */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { neovimInstaller } from './installer.js';

export const neovimEnd: EditorEnd = { id: 'neovim', displayName: 'Neovim', aliases: ['nvim', 'neovim-qt'], installer: neovimInstaller };
