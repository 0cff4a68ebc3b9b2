-- The editor side of the Neovim host's soak (hostSoak.ts), loaded with
-- dofile() into a Neovim running the plugin, before its host starts. Events
-- come from the plugin's own handlers (a buffer switch fires its BufEnter,
-- a cursor move its CursorMoved, Visual mode its ModeChanged); every proposal
-- the host opens is accepted from Lua as `:w` in it would, every EDIT_EVERY-th
-- with a line added first.
local host = require('ide_companion.host')
local context = require('ide_companion.context')
local diff = require('ide_companion.diff')

local M = { sent = 0, opened = 0, heard = nil }
M.EDIT_EVERY = 4
M.EDIT_LINE = 'edited in Neovim'

-- Counted where the plugin hands an event to the host: what the host was sent.
local function counted(send)
  return function(...)
    local ok = send(...)
    if ok then
      M.sent = M.sent + 1
    end
    return ok
  end
end
local host_event = host.event -- uncounted: the barrier's own event
host.cursor = counted(host.cursor)
host.event = counted(host_event)
-- The barrier's answer (a mention no agent takes comes back here): recorded, not shown.
host.on_unheard_mention = function(path)
  M.heard = path
  return true
end

local diff_open = diff.open
diff.open = function(spec)
  local opened = diff_open(spec)
  M.opened = M.opened + 1
  local edit = M.opened % M.EDIT_EVERY == 0
  -- On a later turn, as a user who reads first: the host's call returns before.
  vim.schedule(function()
    if edit then
      vim.api.nvim_buf_set_lines(opened.right, -1, -1, false, { M.EDIT_LINE })
    end
    diff.accept(spec.id)
  end)
  return opened
end

--- Opens `files` as listed buffers in one window, where the events happen.
function M.setup(files)
  for _, file in ipairs(files) do
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
  end
  M.bufs = {}
  for _, file in ipairs(files) do
    table.insert(M.bufs, vim.fn.bufnr(file))
  end
  M.win = vim.api.nvim_get_current_win()
  M.lines = vim.api.nvim_buf_line_count(M.bufs[1])
  M.width = #vim.api.nvim_buf_get_lines(M.bufs[1], 0, 1, false)[1]
  -- Each move is read and sent at once, as moves after a pause are: none is folded into a burst.
  context.CURSOR_DELAY_MS = 0
end

local n = 0
local ESC = vim.api.nvim_replace_termcodes('<Esc>', true, false, true)

--- Makes `count` editor events; returns how many the plugin sent the host.
function M.events(count)
  local before = M.sent
  -- Back in the editing window, if a diff tab took it.
  if vim.api.nvim_get_current_win() ~= M.win then
    vim.api.nvim_set_current_win(M.win)
  end
  for _ = 1, count do
    local kind = n % 10
    if kind == 0 then
      vim.api.nvim_set_current_buf(M.bufs[math.floor(n / 10) % #M.bufs + 1])
    elseif kind == 8 then
      vim.cmd('normal! V')
    elseif kind == 9 then
      vim.cmd('normal! ' .. ESC)
    else
      vim.api.nvim_win_set_cursor(0, { 1 + n % M.lines, math.floor(n / M.lines) % M.width })
      vim.api.nvim_exec_autocmds('CursorMoved', { group = 'ide_companion_context', modeline = false })
    end
    n = n + 1
  end
  return M.sent - before
end

--- Sends a mention of `path` (no agent here takes one): the host answers it
--- after every event sent before, so M.heard == path means they were applied.
function M.barrier(path)
  host_event({ type = 'mention', path = path })
end

_G.ide_companion_soak = M
return M
