-- Options for ide-companion, their defaults, and validation.
local M = {}

-- This file is <root>/lua/ide_companion/config.lua.
local plugin_root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
M.plugin_root = plugin_root

-- Each one is described in doc/ide-companion.txt (|ide-companion-config|).
M.defaults = {
  auto_start = true,
  node = 'node',
  -- The plugin's own host (built by an install or `npm install`), else the `ide-companion` package's on PATH.
  host = plugin_root .. '/host/ide-companion-host.mjs',
  roots = {},
  trusted = nil,
  log_file = vim.fn.stdpath('cache') .. '/ide-companion.log',
  terminal = { cmd = { 'gemini' }, split = 'botright vsplit' },
  -- The ACP agent :IdeAgent runs under `ide-companion agent` (e.g. { 'goose', 'acp' }); nil: :IdeAgent's arguments.
  agent_command = nil,
  agents = nil,
  -- Amp's editFile: 'review' (the diff view) or 'buffer' (written through the buffer, undoable); nil: $IDE_COMPANION_AMP_EDIT, else review.
  amp_edit_file = nil,
  ide_info = { name = 'neovim', displayName = 'Neovim' },
}

-- Each option's type (`?`: may be nil), in the order checked.
local ORDER = { 'auto_start', 'node', 'host', 'roots', 'log_file', 'terminal', 'ide_info', 'agents', 'trusted', 'amp_edit_file', 'agent_command', 'terminal.cmd', 'terminal.split' }
local TYPES = { 'boolean', 'string', 'string', 'table', 'string', 'table', 'table', 'table?', 'boolean?', 'string?', 'table?', 'table', 'string' }

local function check_type(name, value, expected)
  if type(value) ~= expected:gsub('%?$', '') and not (value == nil and expected:find('%?$')) then
    error(string.format('ide-companion: option %s must be a %s, got %s', name, expected:gsub('%?$', ''), type(value)), 3)
  end
end

--- The host in the `ide-companion` package on PATH (npm install -g): what a plugin
--- from git runs when its build step has not built its own; nil when there is none.
--- npm links the command to <package>/packages/cli/bin/ide-companion.js.
local function package_host()
  local exe = vim.fn.exepath('ide-companion')
  local file = exe ~= '' and vim.fn.fnamemodify(vim.fn.resolve(exe), ':p:h:h:h:h') .. '/editors/neovim/host/ide-companion-host.mjs'
  return file and vim.fn.filereadable(file) == 1 and file or nil
end

--- Merges `user` over the defaults and validates the result. Raises on a bad option.
function M.resolve(user)
  user = user or {}
  if type(user) ~= 'table' then
    error('ide-companion: setup() takes a table of options', 2)
  end
  for key in pairs(user) do
    if not vim.tbl_contains(ORDER, key) or key:find('%.') then
      error('ide-companion: unknown option ' .. tostring(key), 2)
    end
  end
  local cfg = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user)
  if type(cfg.terminal) == 'table' and type(cfg.terminal.cmd) == 'string' then
    cfg.terminal.cmd = { cfg.terminal.cmd }
  end
  if type(cfg.agent_command) == 'string' then
    cfg.agent_command = vim.split(cfg.agent_command, '%s+', { trimempty = true })
  end
  for i, name in ipairs(ORDER) do
    local value = name:find('^terminal%.') and cfg.terminal[name:sub(10)] or cfg[name]
    check_type(name, value, TYPES[i])
  end
  if cfg.amp_edit_file ~= nil and cfg.amp_edit_file ~= 'review' and cfg.amp_edit_file ~= 'buffer' then
    error("ide-companion: option amp_edit_file must be 'review' or 'buffer', got " .. vim.inspect(cfg.amp_edit_file), 2)
  end
  -- Which host runs, for :checkhealth.
  local found = user.host == nil and vim.fn.filereadable(cfg.host) ~= 1 and package_host()
  cfg.host = found or cfg.host
  cfg.host_origin = user.host ~= nil and 'the `host` option' or found and 'the ide-companion package on PATH' or "the plugin's own"
  -- tbl_deep_extend merges lists by index: a user's roots replace the defaults' (empty) list.
  cfg.roots = vim.tbl_map(function(root)
    if type(root) ~= 'string' then
      error('ide-companion: option roots[] must be a string, got ' .. type(root), 3)
    end
    local abs = vim.fn.fnamemodify(vim.fn.expand(root), ':p')
    return #abs > 1 and abs:gsub('/$', '') or abs
  end, user.roots or {})
  return cfg
end

return M
