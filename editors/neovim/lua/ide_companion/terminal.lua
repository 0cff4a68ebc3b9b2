-- The agent's CLI in a split terminal, one per Neovim, ended with Neovim. Every other :terminal
-- inherits the GEMINI_CLI_IDE_* variables from vim.env once the companion listens.
local uv = vim.uv or vim.loop
local host = require('ide_companion.host')

local M = {}

local term = nil -- the running CLI: { buf, job, pid }
local notify = host.say
local group = vim.api.nvim_create_augroup('ide_companion_terminal', { clear = true })

local function running()
  return term ~= nil and vim.api.nvim_buf_is_valid(term.buf) and vim.fn.jobwait({ term.job }, 0)[1] == -1
end

--- Why `cmd` cannot run, or nil if its program is found.
local function missing(cmd)
  local program = cmd[1]
  if type(program) ~= 'string' or program == '' then
    return 'terminal.cmd is empty'
  elseif vim.fn.executable(program) == 1 then
    return nil
  elseif program == 'gemini' then
    return '`gemini` was not found on PATH. Install Gemini CLI (npm install -g @google/gemini-cli), or set terminal.cmd in setup() to where it is.'
  end
  return program .. ' (terminal.cmd) was not found or is not executable.'
end

--- Ends the CLI's process group (a terminal job leads its own) with SIGTERM: Neovim's SIGHUP on
--- exit is not enough (a gemini that ignored it lived on).
function M.stop()
  if not running() then
    return false
  end
  local t = term
  term = nil
  if t.pid > 0 then
    pcall(uv.kill, -t.pid, 'sigterm')
    pcall(uv.kill, t.pid, 'sigterm')
  end
  pcall(vim.fn.jobstop, t.job)
  return true
end

vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = M.stop })

local function start(cfg, cmd)
  vim.cmd(cfg.terminal.split)
  vim.cmd('enew')
  local win, buf = vim.api.nvim_get_current_win(), vim.api.nvim_get_current_buf()
  -- The env explicitly too (vim.env may have changed); in a container it has REMOTE_CONTAINERS=1 (the host's rule).
  local env = vim.deepcopy(host.state.env or {})
  local ok, job
  if vim.fn.has('nvim-0.11') == 1 then
    ok, job = pcall(vim.fn.jobstart, cmd, { term = true, env = env })
  else
    ok, job = pcall(vim.fn.termopen, cmd, { env = env })
  end
  if not ok or type(job) ~= 'number' or job <= 0 then
    -- No empty split left behind.
    if vim.api.nvim_win_is_valid(win) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      pcall(vim.api.nvim_win_close, win, true)
    end
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
    notify('could not start ' .. table.concat(cmd, ' ') .. ': ' .. tostring(job):gsub('^.-:%d+: ', ''), vim.log.levels.ERROR)
    return false
  end
  term = { buf = buf, job = job, pid = vim.fn.jobpid(job) }
  return true
end

--- Opens the CLI (cfg.terminal.cmd plus `args`) in a split, or shows the running one, once the companion listens.
function M.open(cfg, args)
  local cmd = vim.list_extend(vim.deepcopy(cfg.terminal.cmd), args or {})
  local function run()
    if not running() and not start(cfg, cmd) then
      return
    end
    local win = vim.tbl_filter(function(w)
      return vim.api.nvim_win_get_buf(w) == term.buf
    end, vim.api.nvim_tabpage_list_wins(0))[1]
    if win then
      vim.api.nvim_set_current_win(win)
    else
      vim.cmd(cfg.terminal.split)
      vim.api.nvim_win_set_buf(0, term.buf)
    end
    vim.cmd('startinsert')
  end
  if running() then
    if #cmd > #cfg.terminal.cmd then
      notify('Gemini CLI already runs in this Neovim: showing it; the arguments apply once it has exited', vim.log.levels.WARN)
    end
    return run() or true
  end
  local why = missing(cmd)
  if why then
    notify(why, vim.log.levels.ERROR)
    return false
  end
  if host.when_ready(run) then
    return true
  end
  notify('the companion is not running (:GeminiStart)', vim.log.levels.ERROR)
  return false
end

--- For tests: the CLI's terminal, if one runs.
function M.info()
  return running() and vim.deepcopy(term) or nil
end

return M
