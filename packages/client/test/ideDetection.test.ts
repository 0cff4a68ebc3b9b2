import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectEditor, detectIdeAsGeminiCli } from '../src/index.js';

test('the CLI rule: ideInfo from the discovery file wins over everything', () => {
  assert.deepEqual(detectIdeAsGeminiCli({}, 'nvim', { name: 'neovim', displayName: 'Neovim' })?.displayName, 'Neovim');
});

test('the CLI rule: without ideInfo only VS Code, Sublime, Zed, Xcode and JetBrains terminals are supported', () => {
  assert.equal(detectIdeAsGeminiCli({ TERM_PROGRAM: 'iTerm.app' }, 'iterm'), undefined);
  assert.equal(detectIdeAsGeminiCli({ NVIM: '/run/nvim.sock' }, 'nvim'), undefined);
  assert.equal(detectIdeAsGeminiCli({ TERM_PROGRAM: 'vscode' }, '/usr/share/code/code')?.name, 'vscode');
  assert.equal(detectIdeAsGeminiCli({ TERM_PROGRAM: 'vscode' }, '/opt/Windsurf/windsurf')?.name, 'vscodefork');
  assert.equal(detectIdeAsGeminiCli({ TERM_PROGRAM: 'vscode', CURSOR_TRACE_ID: 'x' }, '/opt/cursor')?.name, 'cursor');
  assert.equal(detectIdeAsGeminiCli({ TERM_PROGRAM: 'sublime' }, '')?.name, 'sublimetext');
  assert.equal(detectIdeAsGeminiCli({ ZED_SESSION_ID: '1' }, '')?.name, 'zed');
  assert.equal(detectIdeAsGeminiCli({ XCODE_VERSION_ACTUAL: '1500' }, '')?.name, 'xcode');
  assert.equal(detectIdeAsGeminiCli({ TERMINAL_EMULATOR: 'JetBrains-JediTerm' }, '/opt/pycharm/bin/pycharm')?.name, 'pycharm');
  assert.equal(detectIdeAsGeminiCli({ TERMINAL_EMULATOR: 'JetBrains-JediTerm' }, '/opt/unknown')?.name, 'jetbrains');
});

test('the wider guess names terminal editors the CLI does not know', () => {
  assert.equal(detectEditor({ NVIM: '/run/nvim.sock', VIMRUNTIME: '/usr/share/nvim/runtime' })?.name, 'neovim');
  assert.equal(detectEditor({ VIM_TERMINAL: '900', VIMRUNTIME: '/usr/share/vim/vim90' })?.name, 'vim');
  assert.equal(detectEditor({ VIM: '/usr/share/vim', VIMRUNTIME: '/usr/share/vim/vim90' })?.name, 'vim');
  assert.equal(detectEditor({ INSIDE_EMACS: '29.1,vterm' })?.name, 'emacs');
  assert.equal(detectEditor({ TERM_PROGRAM: 'vscode' }, '/opt/Windsurf/windsurf --type=renderer')?.name, 'windsurf');
  assert.equal(detectEditor({}, 'nvim --embed')?.name, 'neovim');
  assert.equal(detectEditor({}, 'bash'), undefined);
});
