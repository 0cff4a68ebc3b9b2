-- Diff tabs: the file on disk (left, read-only) beside the proposal (right): `:w` accepts it as
-- edited, closing it (:q!, :bd!, :tabclose!) rejects. The host owns the protocol and the words.
local uv = vim.uv or vim.loop
local host = require('ide_companion.host')

local M = {}

local diffs = {} -- id -> { id, path, left, right, group, settled, tab, prev_tab, prev_win, from_terminal, hints }
-- Accepted, not yet taken: the view closed, the proposal hidden until the host's closeDiff `accepted` (issue 37).
local held = {}
-- Ids of accepts kept at the host's death: the next host may show the same one (its copy) under that id.
local kept_at_death = {}
local counter = 0

local put, word, notify = host.put, host.word, host.say

--- The keys and any warning in the proposal window itself (on 0.7 a message sent while a terminal
--- had focus never shows): the winbar on 0.8+, else the statusline; cut at its end.
local function show_hint(win, text, warn)
  local width = vim.api.nvim_win_get_width(win) - 1
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 1) .. '…'
  end
  vim.wo[win][vim.fn.has('nvim-0.8') == 1 and 'winbar' or 'statusline'] = (warn and '%#WarningMsg#' or '%#Title#') .. text:gsub('%%', '%%%%')
end

--- Loaded file buffers showing `path` (through symlinks too).
local function buffers_of(path)
  local real = uv.fs_realpath(path)
  return vim.tbl_filter(function(buf)
    local name = vim.api.nvim_buf_get_name(buf)
    return vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' and name ~= '' and (name == path or (real ~= nil and uv.fs_realpath(name) == real))
  end, vim.api.nvim_list_bufs())
end

--- `buf` holds `content` ({lines, fileformat, eol}, split by the host) as the same bytes once written.
function M.set_text(buf, content)
  vim.bo[buf].fileformat = content.fileformat
  -- "\n" is one empty line; setting {''} alone gives Vim's "no lines" state, which writes "".
  local one_empty = content.eol and #content.lines == 1 and content.lines[1] == ''
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, one_empty and { '', '' } or content.lines)
  if one_empty then
    vim.api.nvim_buf_set_lines(buf, 1, 2, false, {})
  end
  vim.bo[buf].endofline, vim.bo[buf].fixendofline = content.eol, content.eol
end

--- The current buffer made a scratch buffer holding `content` ({lines, fileformat, eol}) as the same
--- bytes, named for the file alone (a tab label cuts every folder to one letter: issue 30).
local function scratch(side, path, content, buftype)
  local buf = vim.api.nvim_get_current_buf()
  counter = counter + 1
  vim.bo[buf].buftype, vim.bo[buf].bufhidden, vim.bo[buf].swapfile = buftype, 'wipe', false
  pcall(vim.api.nvim_buf_set_name, buf, string.format('ide-companion://%d/%s/%s', counter, side, vim.fn.fnamemodify(path, ':t')))
  M.set_text(buf, content)
  vim.bo[buf].modified = false
  vim.api.nvim_buf_call(buf, function()
    pcall(vim.cmd, 'silent doautocmd filetypedetect BufRead ' .. vim.fn.fnameescape(path))
  end)
  return buf
end

--- The proposal buffer as it stands, for the host to turn into text (src/host/bufferText.ts).
local function read_state(buf)
  return {
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    fileformat = vim.bo[buf].fileformat,
    eol = vim.bo[buf].endofline,
    fixeol = vim.bo[buf].fixendofline,
    binary = vim.bo[buf].binary,
    empty = vim.api.nvim_buf_call(buf, function()
      return vim.fn.line2byte(vim.fn.line('$') + 1) == -1
    end),
  }
end

--- Puts the keyboard back where the user was: their window, and Terminal mode if they were typing
--- to the agent (else the next prompt runs as Normal-mode commands: `/ide status` becomes a search).
local function back_to(d)
  if d.prev_tab and vim.api.nvim_tabpage_is_valid(d.prev_tab) then
    pcall(vim.api.nvim_set_current_tabpage, d.prev_tab)
  end
  if d.prev_win and vim.api.nvim_win_is_valid(d.prev_win) then
    pcall(vim.api.nvim_set_current_win, d.prev_win)
  end
  if d.from_terminal and vim.bo[vim.api.nvim_get_current_buf()].buftype == 'terminal' then
    -- From the main loop: a startinsert inside an RPC request or an autocmd is not always honoured.
    local win = vim.api.nvim_get_current_win()
    vim.schedule(function()
      if vim.api.nvim_get_current_win() == win and vim.api.nvim_get_mode().mode:sub(1, 1) == 'n' then
        vim.cmd('startinsert')
      end
    end)
  end
end

--- Wipes the diff's buffers (`hide`: the proposal is only hidden); the keyboard goes back only if the diff had it.
local function wipe(d, hide)
  pcall(vim.api.nvim_del_augroup_by_id, d.group)
  local cur = vim.api.nvim_get_current_buf()
  local had = cur == d.right or cur == d.left
  if hide and vim.api.nvim_buf_is_valid(d.right) then
    vim.bo[d.right].bufhidden, vim.bo[d.right].buflisted, d.hidden = 'hide', false, true
    for _, win in ipairs(vim.fn.win_findbuf(d.right)) do
      pcall(vim.api.nvim_win_close, win, true)
    end
  else
    pcall(vim.api.nvim_buf_delete, d.right, { force = true })
  end
  pcall(vim.api.nvim_buf_delete, d.left, { force = true })
  if had or (vim.api.nvim_get_current_win() == d.prev_win and not vim.api.nvim_tabpage_is_valid(d.tab)) then
    back_to(d)
  end
end

--- Settles `d` once: the first of accept, reject and close wins.
local function settle(d)
  if not d or d.settled then
    return false
  end
  d.settled = true
  diffs[d.id] = nil
  return true
end

--- Opens a diff tab. spec = {id, path, proposal, original (nil: a new file), agent, hints, words, kept}.
--- A kept proposal (an accept its CLI never wrote) opens without taking the user's window.
function M.open(spec)
  if spec.kept and kept_at_death[spec.id] then
    return {}
  end
  local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
  local d = { id = spec.id, path = spec.path, hints = spec.hints, from_terminal = mode == 't' }
  d.prev_tab, d.prev_win = vim.api.nvim_get_current_tabpage(), vim.api.nvim_get_current_win()
  -- Typing into the proposal by accident would be worse than leaving Insert mode; a new tab needs Normal mode.
  if mode == 'i' or mode == 't' then
    vim.cmd('stopinsert')
  end
  vim.cmd('tabnew')
  d.tab = vim.api.nvim_get_current_tabpage()
  d.left = scratch(spec.original and 'disk' or 'new-file', spec.path, spec.original or { lines = { '' }, fileformat = 'unix', eol = false }, 'nofile')
  vim.bo[d.left].modifiable = false
  vim.cmd('diffthis')
  vim.cmd('rightbelow vnew')
  d.right = scratch('proposed', spec.path, spec.proposal, 'acwrite')
  vim.cmd('diffthis')
  d.group = vim.api.nvim_create_augroup('ide_companion_diff_' .. counter, { clear = true })
  local function on(events, fn)
    vim.api.nvim_create_autocmd(events, { group = d.group, buffer = d.right, callback = fn })
  end
  on('BufWriteCmd', function()
    M.accept(d.id)
  end)
  -- BufUnload too: with 'bufhidden' wipe :q unloads and wipes, :bd! only unloads; both reject.
  on({ 'BufUnload', 'BufWipeout' }, function()
    if not d.settled then
      vim.schedule(function()
        M.reject(d.id)
      end)
    end
  end)
  diffs[d.id] = d
  local unsaved = #vim.tbl_filter(function(buf)
    return vim.bo[buf].modified
  end, buffers_of(spec.path)) > 0
  local name = vim.fn.fnamemodify(spec.path, ':~:.')
  show_hint(vim.api.nvim_get_current_win(), put(unsaved and spec.hints.unsaved or spec.hints.proposed, '{file}', name), unsaved)
  if spec.kept then
    back_to(d)
  end
  -- After the next redraw, so the tab's drawing does not wipe it; a kept one's closeDiff says what it is.
  if spec.words and not spec.kept then
    vim.schedule(function()
      pcall(vim.cmd, 'redraw')
      notify(unsaved and spec.words.unsaved or spec.words.proposed, unsaved and vim.log.levels.WARN or nil)
    end)
  end
  return { left = d.left, right = d.right }
end

--- The proposal's current state, or nil if the diff is gone.
function M.state(id)
  local d = diffs[id]
  return d and vim.api.nvim_buf_is_valid(d.right) and read_state(d.right) or nil
end

--- Keeps a settled diff's proposal, edits and all, as a scratch buffer (:w FILE saves it); false if gone.
local function keep(d, hint)
  pcall(vim.api.nvim_del_augroup_by_id, d.group)
  pcall(vim.api.nvim_buf_delete, d.left, { force = true })
  if not vim.api.nvim_buf_is_valid(d.right) then
    return false
  end
  vim.bo[d.right].buftype, vim.bo[d.right].bufhidden, vim.bo[d.right].buflisted = 'nofile', 'hide', true
  if d.hidden then
    -- Back in a tab of its own, without taking the user's window.
    local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
    d.prev_tab, d.prev_win, d.from_terminal = vim.api.nvim_get_current_tabpage(), vim.api.nvim_get_current_win(), mode == 't'
    if mode == 'i' or mode == 't' then
      vim.cmd('stopinsert')
    end
    vim.cmd('tab sbuffer ' .. d.right)
    back_to(d)
  end
  for _, win in ipairs(vim.fn.win_findbuf(d.right)) do
    show_hint(win, hint, true)
  end
  return true
end

--- An accepted proposal no longer held: kept (`hint`) or wiped; if its view is still closing, that close sees it.
local function unhold(d, hint)
  held[d.id] = nil
  d.kept = hint ~= nil
  if hint then
    return keep(d, hint)
  end
  if d.hidden then
    pcall(vim.api.nvim_buf_delete, d.right, { force = true })
  end
  return true
end

--- The CLI (or the companion) closed the diff, no outcome sent; its session gone, the proposal stays.
--- `accepted`: the host took the accept (its copy written, the CLI told), the proposal held since goes.
function M.close(id, reason, message)
  local d = diffs[id]
  local shown = true
  if kept_at_death[id] then
    -- Kept once already, and said so.
    kept_at_death[id] = nil
    return true
  elseif held[id] then
    shown = unhold(held[id], reason == 'sessionClosed' and held[id].hints.sessionGone or nil)
  elseif not settle(d) then
    return false
  elseif reason == 'sessionClosed' then
    shown = keep(d, d.hints.sessionGone)
  else
    wipe(d)
  end
  if message and shown then
    notify(message, reason == 'sessionClosed' and vim.log.levels.WARN or nil)
  end
  return true
end

--- reload: the agent wrote `path`. Unmodified buffers reread it without a prompt; modified ones stay.
function M.reload(params)
  for _, buf in ipairs(buffers_of(params.path)) do
    if vim.bo[buf].modified then
      notify(params.unsavedWarning, vim.log.levels.WARN)
    else
      vim.api.nvim_buf_call(buf, function()
        -- A local 'autoread' makes :checktime reload without the prompt; 'undoreload' keeps undo at any size.
        local ur = vim.o.undoreload
        vim.cmd('setlocal autoread | set undoreload=2147483647')
        pcall(vim.cmd, 'silent checktime ' .. tonumber(buf))
        vim.cmd('set autoread<')
        vim.o.undoreload = ur
      end)
    end
  end
end

function M.accept(id)
  local d = diffs[id]
  if not d or not vim.api.nvim_buf_is_valid(d.right) or not settle(d) then
    return false
  end
  local state = read_state(d.right)
  vim.bo[d.right].modified = false
  if not host.notify('diffAccept', { id = id, buffer = state }) then
    -- Not inside BufWriteCmd: changing the buffer being written is refused there.
    vim.schedule(function()
      if keep(d, word('keptNotRunning')) then
        notify(put(word('acceptUnsent'), '{file}', vim.fn.fnamemodify(d.path, ':t')), vim.log.levels.ERROR)
      end
    end)
    return true
  end
  -- Held until the host says it took the accept: a host that dies first leaves it kept (keep_all).
  held[id] = d
  vim.schedule(function()
    if not d.kept then
      wipe(d, held[id] == d)
    end
  end)
  return true
end

function M.reject(id)
  local d = diffs[id]
  if not settle(d) then
    return false
  end
  host.event({ type = 'diffRejected', diffId = id })
  vim.schedule(function()
    wipe(d)
  end)
  return true
end

--- The diff a command applies to: the one in the current tab, else the only one open (and how many are).
function M.current()
  local in_tab, count, only = {}, 0, nil
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    in_tab[vim.api.nvim_win_get_buf(win)] = true
  end
  for _, d in pairs(diffs) do
    if in_tab[d.left] or in_tab[d.right] then
      return d
    end
    only, count = d, count + 1
  end
  return count == 1 and only or nil, count
end

function M.list()
  local out = {}
  for _, d in pairs(diffs) do
    table.insert(out, { id = d.id, path = d.path, proposal = d.right, original = d.left })
  end
  return out
end

--- The host died: each proposal is kept, and each accept it had not taken (an accepted text it took and
--- the agent had not written yet is the next host's to show, kept: acceptedWrites.ts). Returns the files' names.
function M.keep_all()
  local kept = {}
  for _, d in pairs(diffs) do
    if settle(d) and keep(d, word('keptStopped')) then
      table.insert(kept, vim.fn.fnamemodify(d.path, ':t'))
    end
  end
  for _, d in pairs(held) do
    kept_at_death[d.id] = true
    if unhold(d, word('keptStopped')) then
      table.insert(kept, vim.fn.fnamemodify(d.path, ':t'))
    end
  end
  return kept
end

--- The host went away: its diffs can no longer be answered.
function M.close_all()
  for _, d in pairs(diffs) do
    if settle(d) then
      wipe(d)
    end
  end
  for _, d in pairs(held) do
    unhold(d)
  end
end

return M
