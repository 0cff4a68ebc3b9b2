-- The agent's CLI in a split terminal (:Gemini; :IdeAgent for an ACP agent under `ide-companion agent`), one of
-- each per Neovim, ended with Neovim. Every other :terminal inherits the GEMINI_CLI_IDE_* variables from vim.env
-- once the companion listens.
local uv = vim.uv or vim.loop
local host = require('ide_companion.host')

local M = {}

local terms = {} -- the running CLIs by kind ('gemini', 'agent'): { buf, job, pid }
local notify = host.say
local group = vim.api.nvim_create_augroup('ide_companion_terminal', { clear = true })

local function running(kind)
  local term = terms[kind or 'gemini']
  return term ~= nil and vim.api.nvim_buf_is_valid(term.buf) and vim.fn.jobwait({ term.job }, 0)[1] == -1
end

--- Why `cmd` cannot run, or nil if its program is found.
local function missing(cmd, option)
  local program = cmd[1]
  if type(program) ~= 'string' or program == '' then
    return option == 'agent_command' and 'give the ACP agent\'s command (:IdeAgent gemini --acp) or set agent_command in setup(); `ide-companion agent --list` names the ones on PATH'
      or option .. ' is empty'
  elseif vim.fn.executable(program) == 1 then
    return nil
  elseif program == 'gemini' and option == 'terminal.cmd' then
    return '`gemini` was not found on PATH. Install Gemini CLI (npm install -g @google/gemini-cli), or set terminal.cmd in setup() to where it is.'
  end
  return program .. ' (' .. option .. ') was not found or is not executable.'
end

--- Ends the CLI's process group (a terminal job leads its own) with SIGTERM: Neovim's SIGHUP on
--- exit is not enough (a gemini that ignored it lived on).
function M.stop()
  local stopped = false
  for kind, t in pairs(terms) do
    if running(kind) then
      if t.pid > 0 then
        pcall(uv.kill, -t.pid, 'sigterm')
        pcall(uv.kill, t.pid, 'sigterm')
      end
      pcall(vim.fn.jobstop, t.job)
      stopped = true
    end
  end
  terms = {}
  return stopped
end

vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = M.stop })

local function start(cfg, cmd, kind)
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
  terms[kind] = { buf = buf, job = job, pid = vim.fn.jobpid(job) }
  return true
end

--- Opens the CLI (cfg.terminal.cmd plus `args`) in a split, or shows the running one, once the companion listens.
--- kind 'agent': `ide-companion agent --` (the host's, shared/acpLauncher.ts) and `args`, else cfg.agent_command.
function M.open(cfg, args, kind)
  kind = kind or 'gemini'
  local agent = kind == 'agent'
  local own = agent and (#(args or {}) > 0 and args or cfg.agent_command or {}) or vim.list_extend(vim.deepcopy(cfg.terminal.cmd), args or {})
  local function run()
    if not running(kind) then
      local acp = agent and (host.state.info or {}).acp or {}
      if acp.missing then
        return notify(acp.missing, vim.log.levels.ERROR)
      end
      if not start(cfg, vim.list_extend(vim.deepcopy(acp.argv or {}), own), kind) then
        return
      end
    end
    local term = terms[kind]
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
  if running(kind) then
    if #(args or {}) > 0 then
      notify((agent and 'the ACP agent' or 'Gemini CLI') .. ' already runs in this Neovim: showing it; the arguments apply once it has exited', vim.log.levels.WARN)
    end
    return run() or true
  end
  local why = missing(own, agent and 'agent_command' or 'terminal.cmd')
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

--- For tests: the CLI's terminal (of `kind`, default gemini), if one runs.
function M.info(kind)
  return running(kind) and vim.deepcopy(terms[kind or 'gemini']) or nil
end

return M
