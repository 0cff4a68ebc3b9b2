-- ide-companion: Gemini CLI's IDE mode in Neovim. See :help ide-companion.
local config = require('ide_companion.config')
local host = require('ide_companion.host')

local M = {}

M.config = nil
local setup_done = false

local function cfg()
  M.config = M.config or config.resolve({})
  return M.config
end

--- Runs fn now if Neovim has started, else once it has.
function M.once_entered(fn)
  if vim.v.vim_did_enter == 1 then
    return fn()
  end
  vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = fn })
end

--- Configures the plugin (see :help ide-companion-config) and, with auto_start, starts the companion.
function M.setup(opts)
  M.config = config.resolve(opts)
  setup_done = true
  require('ide_companion.commands').define()
  local doc = config.plugin_root .. '/doc'
  if vim.fn.isdirectory(doc) == 1 and vim.fn.filereadable(doc .. '/tags') == 0 then
    pcall(vim.cmd, 'silent helptags ' .. vim.fn.fnameescape(doc))
  end
  if M.config.auto_start then
    M.once_entered(function()
      M.start()
    end)
  end
end

--- For plugin/ide_companion.lua: default setup at startup if the user did not call setup().
function M._auto_setup()
  if not setup_done and vim.g.ide_companion_auto_setup ~= false then
    M.setup({})
  end
end

--- Starts the host and its companion. Returns false if it could not be started.
function M.start()
  local c = cfg()
  local roots = require('ide_companion.context').roots(c.roots)
  -- The hello of docs/editor-protocol.md: who this editor is and what it can do.
  return host.start(c, { type = 'hello', protocol = 1, pid = vim.fn.getpid(), roots = roots, trusted = c.trusted, logFile = c.log_file,
    ide = c.ide_info, capabilities = require('ide_companion.actions').CAPABILITIES, agents = c.agents,
    ampEditFile = c.amp_edit_file })
end

M.stop = host.stop
M.is_running = host.is_running

--- "Send to agent": the current file, or lines first..last of it, to the
--- connected agents that take a mention (Claude Code's at_mentioned); the host says when none took it.
function M.send_to_agent(first, last)
  local path = vim.api.nvim_buf_get_name(0)
  if path == '' or vim.bo.buftype ~= '' then
    return host.say('this buffer is not a file', vim.log.levels.WARN) and false
  end
  return host.event({ type = 'mention', path = vim.fn.resolve(vim.fn.fnamemodify(path, ':p')), startLine = first, endLine = last })
end

--- Status as lines of text (what :GeminiStatus prints): the host's report, and the diffs open here.
function M.status_lines()
  local s = host.state
  if s.status ~= 'running' or not s.report then
    return { 'ide-companion: ' .. s.status, s.last_error and 'last error: ' .. s.last_error or nil }
  end
  local lines = vim.deepcopy(s.report.lines)
  for _, d in ipairs(require('ide_companion.diff').list()) do
    table.insert(lines, 'pending diff: ' .. d.path)
  end
  return lines
end

M._cfg = cfg

return M
