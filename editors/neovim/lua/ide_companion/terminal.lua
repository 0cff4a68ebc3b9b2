-- Gemini CLI in a split terminal, tied to this Neovim. The GEMINI_CLI_IDE_*
-- variables are also in vim.env once the companion listens, so every
-- :terminal (and :!cmd, jobstart) started after that inherits them.
-- One terminal per Neovim: :Gemini again shows it instead of starting another,
-- and quitting Neovim ends it with everything it started.
local uv = vim.uv or vim.loop
local host = require('ide_companion.host')

local M = {}

-- The running CLI: { buf, job, pid } or nil.
local term = nil

local function notify(msg, level)
  vim.notify('ide-companion: ' .. msg, level or vim.log.levels.INFO)
end

local function running()
  return term ~= nil
    and vim.api.nvim_buf_is_valid(term.buf)
    and vim.fn.jobwait({ term.job }, 0)[1] == -1
end

--- Why `cmd` cannot run, or nil if its program is found.
local function missing(cmd)
  local program = cmd[1]
  if type(program) ~= 'string' or program == '' then
    return 'terminal.cmd is empty'
  end
  if vim.fn.executable(program) == 1 then
    return nil
  end
  if program == 'gemini' then
    return '`gemini` was not found on PATH. Install Gemini CLI (npm install -g @google/gemini-cli), '
      .. 'or set terminal.cmd in setup() to where it is.'
  end
  return string.format('%s (terminal.cmd) was not found or is not executable.', program)
end

--- The CLI's process group, ended with SIGTERM: Neovim's SIGHUP on exit is
--- not enough (a gemini that ignores it lived on, re-parented to init).
local function kill_group(pid)
  if pid and pid > 0 then
    -- A terminal job leads its own session and process group (setsid on its pty).
    pcall(uv.kill, -pid, 'sigterm')
    pcall(uv.kill, pid, 'sigterm')
  end
end

--- Ends the CLI this Neovim started, if it runs.
function M.stop()
  if not running() then
    return false
  end
  local t = term
  term = nil
  kill_group(t.pid)
  pcall(vim.fn.jobstop, t.job)
  return true
end

local group = vim.api.nvim_create_augroup('ide_companion_terminal', { clear = true })
vim.api.nvim_create_autocmd('VimLeavePre', {
  group = group,
  callback = function()
    M.stop()
  end,
})

--- Shows the CLI's buffer: in its window if this tab has one, else in a new split.
local function show(cfg, buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_set_current_win(win)
      return
    end
  end
  vim.cmd(cfg.terminal.split)
  vim.api.nvim_win_set_buf(0, buf)
end

--- In a container or toolbox (/.dockerenv, /run/.containerenv) gemini dials
--- host.docker.internal, not this Neovim on loopback, unless REMOTE_CONTAINERS
--- is set: the companion's hint says so (packages/protocol/src/containerHost.ts).
local function container_hint()
  return host.state.info and host.state.info.containerHint or nil
end

local told_container = false

--- The env of :Gemini's terminal: the companion's, plus REMOTE_CONTAINERS=1
--- in a container (where this Neovim and its gemini are both inside), said once.
local function terminal_env()
  local env = vim.deepcopy(host.state.env or {})
  if container_hint() then
    env.REMOTE_CONTAINERS = '1'
    if not told_container then
      told_container = true
      notify('in a container: :Gemini sets REMOTE_CONTAINERS=1 so gemini dials this Neovim on 127.0.0.1; '
        .. 'in another terminal run `export REMOTE_CONTAINERS=1` before gemini')
    end
  end
  return env
end

--- From setup(): a gemini the user starts in a :terminal of their own cannot
--- connect from a container unless told; the fix is said when such a terminal opens.
function M.watch_terminals()
  vim.api.nvim_create_autocmd('TermOpen', {
    group = group,
    callback = function(ev)
      if told_container or not container_hint() or (term and term.buf == ev.buf) then
        return
      end
      told_container = true
      vim.schedule(function()
        notify(
          'in a container, gemini dials host.docker.internal, not this Neovim: run `export REMOTE_CONTAINERS=1` in this terminal before gemini (:Gemini does it for you)',
          vim.log.levels.WARN
        )
      end)
    end,
  })
end

local function start(cfg, cmd)
  vim.cmd(cfg.terminal.split)
  vim.cmd('enew')
  local win, buf = vim.api.nvim_get_current_win(), vim.api.nvim_get_current_buf()
  -- The env explicitly too: a terminal must name this Neovim even if vim.env was changed since.
  local env = terminal_env()
  local ok, job
  -- Ours before TermOpen runs: no warning about the terminal that has the fix.
  term = { buf = buf }
  if vim.fn.has('nvim-0.11') == 1 then
    ok, job = pcall(vim.fn.jobstart, cmd, { term = true, env = env })
  else
    ok, job = pcall(vim.fn.termopen, cmd, { env = env })
  end
  term = nil
  if not ok or type(job) ~= 'number' or job <= 0 then
    -- No empty split left behind.
    if vim.api.nvim_win_is_valid(win) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      pcall(vim.api.nvim_win_close, win, true)
    end
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
    local reason = tostring(job):gsub('^.-:%d+: ', '')
    notify('could not start ' .. table.concat(cmd, ' ') .. ': ' .. reason, vim.log.levels.ERROR)
    return false
  end
  term = { buf = buf, job = job, pid = vim.fn.jobpid(job) }
  return true
end

--- Opens the CLI (cfg.terminal.cmd plus `args`) in a split, or shows the one
--- already running; waits for the companion if it is starting.
function M.open(cfg, args)
  if running() then
    if args and #args > 0 then
      notify('Gemini CLI already runs in this Neovim: showing it; the arguments apply once it has exited', vim.log.levels.WARN)
    end
    show(cfg, term.buf)
    vim.cmd('startinsert')
    return true
  end
  local cmd = vim.list_extend(vim.deepcopy(cfg.terminal.cmd), args or {})
  local why = missing(cmd)
  if why then
    notify(why, vim.log.levels.ERROR)
    return false
  end
  local function run()
    if running() then
      show(cfg, term.buf)
    elseif not start(cfg, cmd) then
      return
    end
    vim.cmd('startinsert')
  end
  if host.when_ready(run) then
    return true
  end
  notify('the companion is not running (:GeminiStart)', vim.log.levels.ERROR)
  return false
end

--- For :GeminiStatus and tests: the CLI's terminal, if one runs.
function M.info()
  if not running() then
    return nil
  end
  return { buf = term.buf, job = term.job, pid = term.pid }
end

return M
