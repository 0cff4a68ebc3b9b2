/**
 * Which IDE the CLI runs in. Two answers:
 * - `detectIdeAsGeminiCli`: the real CLI's rule (detect-ide.js), which decides
 *   whether it connects at all: `ideInfo` from the discovery file wins; without
 *   it only VS Code (and forks), Sublime, Zed, Xcode and JetBrains terminals
 *   count. `doctor` uses it to predict what `gemini` will do.
 * - `detectEditor`: a wider guess (Neovim, Vim, Emacs, Windsurf, Helix...) for
 *   installers and messages; it never gates a connection.
 */
import type { IdeInfo } from '@ide-companion/protocol';

export interface DetectedIde extends IdeInfo {
  /** What gave it away, e.g. `TERM_PROGRAM=vscode` or `discovery file ideInfo`. */
  evidence: string;
}

/** The real CLI's table, abridged to what its rule can return. */
export const GEMINI_CLI_IDES = {
  devin: { name: 'devin', displayName: 'Devin' },
  replit: { name: 'replit', displayName: 'Replit' },
  cursor: { name: 'cursor', displayName: 'Cursor' },
  cloudshell: { name: 'cloudshell', displayName: 'Cloud Shell' },
  codespaces: { name: 'codespaces', displayName: 'GitHub Codespaces' },
  firebasestudio: { name: 'firebasestudio', displayName: 'Firebase Studio' },
  trae: { name: 'trae', displayName: 'Trae' },
  vscode: { name: 'vscode', displayName: 'VS Code' },
  vscodefork: { name: 'vscodefork', displayName: 'IDE' },
  positron: { name: 'positron', displayName: 'Positron' },
  antigravity: { name: 'antigravity', displayName: 'Antigravity' },
  sublimetext: { name: 'sublimetext', displayName: 'Sublime Text' },
  jetbrains: { name: 'jetbrains', displayName: 'JetBrains IDE' },
  intellijidea: { name: 'intellijidea', displayName: 'IntelliJ IDEA' },
  webstorm: { name: 'webstorm', displayName: 'WebStorm' },
  pycharm: { name: 'pycharm', displayName: 'PyCharm' },
  goland: { name: 'goland', displayName: 'GoLand' },
  androidstudio: { name: 'androidstudio', displayName: 'Android Studio' },
  clion: { name: 'clion', displayName: 'CLion' },
  rustrover: { name: 'rustrover', displayName: 'RustRover' },
  datagrip: { name: 'datagrip', displayName: 'DataGrip' },
  phpstorm: { name: 'phpstorm', displayName: 'PhpStorm' },
  zed: { name: 'zed', displayName: 'Zed' },
  xcode: { name: 'xcode', displayName: 'XCode' },
} as const satisfies Record<string, IdeInfo>;

/** Editors the CLI's table lacks, for `detectEditor`. */
const OTHER_EDITORS = {
  neovim: { name: 'neovim', displayName: 'Neovim' },
  vim: { name: 'vim', displayName: 'Vim' },
  emacs: { name: 'emacs', displayName: 'Emacs' },
  helix: { name: 'helix', displayName: 'Helix' },
  kakoune: { name: 'kakoune', displayName: 'Kakoune' },
  windsurf: { name: 'windsurf', displayName: 'Windsurf' },
  vscodium: { name: 'vscodium', displayName: 'VSCodium' },
} as const satisfies Record<string, IdeInfo>;

const isJetBrains = (env: NodeJS.ProcessEnv) => !!env['TERMINAL_EMULATOR']?.toLowerCase().includes('jetbrains');

/** The CLI's env-only guess (detectIdeFromEnv); VS Code when nothing else matches. */
function fromEnvLikeCli(env: NodeJS.ProcessEnv): DetectedIde {
  const I = GEMINI_CLI_IDES;
  const checks: Array<[boolean, IdeInfo, string]> = [
    [!!env['ANTIGRAVITY_CLI_ALIAS'], I.antigravity, 'ANTIGRAVITY_CLI_ALIAS'],
    [!!env['__COG_BASHRC_SOURCED'], I.devin, '__COG_BASHRC_SOURCED'],
    [!!env['REPLIT_USER'], I.replit, 'REPLIT_USER'],
    [!!env['CURSOR_TRACE_ID'], I.cursor, 'CURSOR_TRACE_ID'],
    [!!env['CODESPACES'], I.codespaces, 'CODESPACES'],
    [!!(env['EDITOR_IN_CLOUD_SHELL'] || env['CLOUD_SHELL']), I.cloudshell, 'CLOUD_SHELL'],
    [env['TERM_PRODUCT'] === 'Trae', I.trae, 'TERM_PRODUCT=Trae'],
    [!!env['MONOSPACE_ENV'], I.firebasestudio, 'MONOSPACE_ENV'],
    [env['POSITRON'] === '1', I.positron, 'POSITRON=1'],
    [env['TERM_PROGRAM'] === 'sublime', I.sublimetext, 'TERM_PROGRAM=sublime'],
    [!!env['ZED_SESSION_ID'] || env['TERM_PROGRAM'] === 'Zed', I.zed, 'ZED_SESSION_ID or TERM_PROGRAM=Zed'],
    [!!env['XCODE_VERSION_ACTUAL'], I.xcode, 'XCODE_VERSION_ACTUAL'],
    [isJetBrains(env), I.jetbrains, 'TERMINAL_EMULATOR=JetBrains...'],
  ];
  const hit = checks.find(([ok]) => ok);
  return hit ? { ...hit[1], evidence: hit[2] } : { ...I.vscode, evidence: `TERM_PROGRAM=${env['TERM_PROGRAM'] ?? ''}` };
}

/**
 * The real CLI's answer, or undefined where it says "IDE integration is not
 * supported in your current environment" and does not try to connect.
 */
export function detectIdeAsGeminiCli(
  env: NodeJS.ProcessEnv,
  ideProcessCommand: string | undefined,
  ideInfoFromFile?: Partial<IdeInfo>,
): DetectedIde | undefined {
  if (ideInfoFromFile?.name && ideInfoFromFile.displayName) {
    return { name: ideInfoFromFile.name, displayName: ideInfoFromFile.displayName, evidence: 'discovery file ideInfo' };
  }
  const term = env['TERM_PROGRAM'];
  const supported = term === 'vscode' || term === 'sublime' || term === 'Zed' || !!env['ZED_SESSION_ID'] || !!env['XCODE_VERSION_ACTUAL'] || isJetBrains(env);
  if (!supported) return undefined;
  const ide = fromEnvLikeCli(env);
  const command = (ideProcessCommand ?? '').toLowerCase();
  if (isJetBrains(env)) {
    if (ide.name !== 'jetbrains' || !command) return ide;
    const products: Array<[string, IdeInfo]> = [
      ['idea', GEMINI_CLI_IDES.intellijidea],
      ['webstorm', GEMINI_CLI_IDES.webstorm],
      ['pycharm', GEMINI_CLI_IDES.pycharm],
      ['goland', GEMINI_CLI_IDES.goland],
      ['studio', GEMINI_CLI_IDES.androidstudio],
      ['clion', GEMINI_CLI_IDES.clion],
      ['rustrover', GEMINI_CLI_IDES.rustrover],
      ['datagrip', GEMINI_CLI_IDES.datagrip],
      ['phpstorm', GEMINI_CLI_IDES.phpstorm],
    ];
    const product = products.find(([needle]) => command.includes(needle));
    return product ? { ...product[1], evidence: `${ide.evidence} and IDE process command` } : ide;
  }
  if (ide.name !== 'vscode') return ide;
  // A VS Code terminal whose IDE process is not called "code": a fork.
  if (!command || command.includes('code')) return ide;
  return { ...GEMINI_CLI_IDES.vscodefork, evidence: `${ide.evidence}, IDE process is not 'code'` };
}

/** Editors beyond the CLI's list, from env vars their terminals set, then from the IDE process name. */
export function detectEditor(env: NodeJS.ProcessEnv, ideProcessCommand?: string): DetectedIde | undefined {
  const E = OTHER_EDITORS;
  const checks: Array<[boolean, IdeInfo, string]> = [
    [!!env['NVIM'] || !!env['NVIM_LISTEN_ADDRESS'], E.neovim, '$NVIM'],
    [!!env['INSIDE_EMACS'], E.emacs, 'INSIDE_EMACS'],
    [!!env['VIM_TERMINAL'] || (!!env['VIMRUNTIME'] && !!(env['VIM'] || env['MYVIMRC'])), E.vim, '$VIM_TERMINAL/$VIMRUNTIME'],
    [!!env['HELIX_RUNTIME'] && env['TERM_PROGRAM'] === undefined, E.helix, 'HELIX_RUNTIME'],
    [!!env['KAKOUNE_SESSION'], E.kakoune, 'KAKOUNE_SESSION'],
    [!!env['WINDSURF_SESSION_ID'] || /windsurf/i.test(env['TERM_PROGRAM_VERSION'] ?? ''), E.windsurf, 'WINDSURF_*'],
  ];
  const hit = checks.find(([ok]) => ok);
  if (hit) return { ...hit[1], evidence: hit[2] };
  const cli = detectIdeAsGeminiCli(env, ideProcessCommand);
  if (cli) {
    if (cli.name === 'vscodefork' && ideProcessCommand) {
      const fork = forkFromCommand(ideProcessCommand);
      if (fork) return fork;
    }
    return cli;
  }
  return ideProcessCommand ? fromCommand(ideProcessCommand) : undefined;
}

const FORKS: Array<[RegExp, IdeInfo]> = [
  [/cursor/i, GEMINI_CLI_IDES.cursor],
  [/windsurf/i, OTHER_EDITORS.windsurf],
  [/vscodium|codium/i, OTHER_EDITORS.vscodium],
  [/positron/i, GEMINI_CLI_IDES.positron],
  [/trae/i, GEMINI_CLI_IDES.trae],
  [/antigravity/i, GEMINI_CLI_IDES.antigravity],
];

function forkFromCommand(command: string): DetectedIde | undefined {
  const hit = FORKS.find(([re]) => re.test(command));
  return hit ? { ...hit[1], evidence: 'IDE process command' } : undefined;
}

function fromCommand(command: string): DetectedIde | undefined {
  const first = (command.split(' ')[0] ?? '').split(/[\\/]/).pop()!.toLowerCase();
  const table: Array<[RegExp, IdeInfo]> = [
    [/^n?vim$|^nvim/, first.startsWith('nvim') ? OTHER_EDITORS.neovim : OTHER_EDITORS.vim],
    [/^emacs/, OTHER_EDITORS.emacs],
    [/^(hx|helix)$/, OTHER_EDITORS.helix],
    [/^zed/, GEMINI_CLI_IDES.zed],
    [/^sublime_text|^subl$/, GEMINI_CLI_IDES.sublimetext],
    [/^code(-insiders)?$/, GEMINI_CLI_IDES.vscode],
  ];
  const hit = table.find(([re]) => re.test(first));
  return hit ? { ...hit[1], evidence: 'IDE process command' } : forkFromCommand(command);
}
