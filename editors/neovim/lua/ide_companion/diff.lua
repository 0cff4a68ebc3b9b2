-- Diff tabs: the file as it is on disk (left, read-only) beside Gemini's
-- proposal (right, editable). `:w` in the proposal accepts it as edited;
-- closing it (:q!, :bd!, :tabclose!) rejects. The host owns the protocol;
-- this module only shows, reads back and closes buffers.
local uv = vim.uv or vim.loop
local host = require('ide_companion.host')

local M = {}

-- id -> { id, path, left, right, group, settled, prev_tab }
local diffs = {}
local counter = 0

-- path -> content: what the user accepted, kept only for a host that dies
-- with the accept in its pipe (or before the CLI wrote it): the companion's
-- own memory of it dies with the host. Dropped when the host says the file
-- holds it (`reload`) or a new proposal for the file opens; shown again by
-- keep_all() unless the file holds it (docs/reliability.md).
local accepted = {}

-- The words for when the host is gone (it cannot send them then), as the
-- host gave them in on_started (diffWords.ts hostGoneWords); these few
-- stand in for a host too old to send them.
local words = { acceptUnsent = 'the companion is not running: the accept reached no one; {file} is kept', keptAtDeath = '; kept: {files}' }

--- `template` with `value` put for `key`, literally (never a format string).
local function put(template, key, value)
  return (template:gsub(key, function()
    return value
  end))
end

--- on_started: the host's words, kept for when it is gone.
function M.set_words(given)
  if type(given) == 'table' and type(given.acceptUnsent) == 'string' and type(given.keptAtDeath) == 'string' then
    words = { acceptUnsent = given.acceptUnsent, keptAtDeath = given.keptAtDeath }
  end
end

--- What the "host stopped" line adds for the files kept ('' for none).
function M.kept_words(kept)
  return #kept == 0 and '' or put(words.keptAtDeath, '{files}', table.concat(kept, ', '))
end

local function notify(msg, level)
  vim.notify('ide-companion: ' .. msg, level or vim.log.levels.INFO)
end

--- Keeps the keys and any warning on screen in the proposal window itself: a
--- message can be lost (on 0.7 one sent while a terminal window had focus
--- never shows). The winbar where there is one (0.8+), else the statusline.
local function show_hint(win, text, warn)
  -- Cut at the end ourselves: Vim would cut the start, where the keys are.
  local width = vim.api.nvim_win_get_width(win) - 1
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 1) .. '…'
  end
  local bar = (warn and '%#WarningMsg#' or '%#Title#') .. text:gsub('%%', '%%%%')
  if vim.fn.has('nvim-0.8') == 1 then
    vim.wo[win].winbar = bar
  else
    vim.wo[win].statusline = bar
  end
end

--- A message shown after the next redraw, so the diff tab's drawing does not wipe it.
local function later_notify(msg, level)
  vim.schedule(function()
    pcall(vim.cmd, 'redraw')
    notify(msg, level)
  end)
end

local function same_file(a, b)
  if a == b then
    return true
  end
  local ra, rb = uv.fs_realpath(a), uv.fs_realpath(b)
  return ra ~= nil and ra == rb
end

--- Loaded file buffers showing `path` (through symlinks too).
local function buffers_of(path)
  local found = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= '' and same_file(name, path) then
        table.insert(found, buf)
      end
    end
  end
  return found
end

--- Fills `buf` with `content` ({lines, fileformat, eol}) so that reading it back gives the same bytes.
local function fill(buf, content)
  local lines = content.lines
  vim.bo[buf].fileformat = content.fileformat
  if content.eol and #lines == 1 and lines[1] == '' then
    -- "\n" is one empty line; setting {''} directly gives Vim's "no lines" state, which writes "".
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '', '' })
    vim.api.nvim_buf_set_lines(buf, 1, 2, false, {})
  else
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  vim.bo[buf].endofline = content.eol
  vim.bo[buf].fixendofline = content.eol
end

local function detect_filetype(buf, path)
  vim.api.nvim_buf_call(buf, function()
    pcall(vim.cmd, 'silent doautocmd filetypedetect BufRead ' .. vim.fn.fnameescape(path))
  end)
end

local SEPARATOR = { unix = '\n', dos = '\r\n', mac = '\r' }

--- What `:w` would write from `state`, as {lines, fileformat, eol} for fill()
--- (src/host/bufferText.ts textFromBuffer is the reference).
local function content_of(state)
  if state.empty then
    return { lines = { '' }, fileformat = state.fileformat, eol = false }
  end
  return { lines = state.lines, fileformat = state.fileformat, eol = state.eol or (state.fixeol and not state.binary) }
end

local function text_of(content)
  local sep = SEPARATOR[content.fileformat] or '\n'
  return table.concat(content.lines, sep) .. (content.eol and sep or '')
end

--- Whether the file at `path` holds exactly `text`.
local function file_holds(path, text)
  local f = io.open(path, 'rb')
  if not f then
    return false
  end
  local on_disk = f:read('*a')
  f:close()
  return on_disk == text
end

--- The file's name alone after the diff's number and side: a tab's label is
--- the buffer name with every folder cut to one letter, and the file's whole
--- path there read `i//1/p/t/i/w/a.txt` (issue 30). The winbar (statusline
--- on 0.7) names the file in full.
local function scratch_name(n, side, path)
  return string.format('ide-companion://%d/%s/%s', n, side, vim.fn.fnamemodify(path, ':t'))
end

--- The proposal buffer as it stands, for the host to turn into text (src/host/bufferText.ts).
local function read_state(buf)
  local empty = vim.api.nvim_buf_call(buf, function()
    return vim.fn.line2byte(vim.fn.line('$') + 1) == -1
  end)
  return {
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    fileformat = vim.bo[buf].fileformat,
    eol = vim.bo[buf].endofline,
    fixeol = vim.bo[buf].fixendofline,
    binary = vim.bo[buf].binary,
    empty = empty,
  }
end

--- Puts the keyboard back where the user was when the diff opened: their
--- window, and Terminal mode again when they were typing to the agent (else
--- the next prompt they type runs as Normal-mode commands: `/ide status`
--- becomes a search). Only when the diff had the cursor: a user who went
--- elsewhere stays there.
local function return_to_user(d, in_diff_tab)
  local back_in_prev = d.prev_win and vim.api.nvim_get_current_win() == d.prev_win and not vim.api.nvim_tabpage_is_valid(d.tab or -1)
  if not in_diff_tab and not back_in_prev then
    return
  end
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

local function wipe(d)
  pcall(vim.api.nvim_del_augroup_by_id, d.group)
  local in_diff_tab = vim.api.nvim_get_current_buf() == d.right or vim.api.nvim_get_current_buf() == d.left
  for _, buf in ipairs({ d.right, d.left }) do
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  return_to_user(d, in_diff_tab)
end

--- Settles `d` once: the first of accept, reject and close wins.
local function settle(d)
  if d.settled then
    return false
  end
  d.settled = true
  diffs[d.id] = nil
  return true
end

local function diff_for_buf(buf)
  for _, d in pairs(diffs) do
    if d.left == buf or d.right == buf then
      return d
    end
  end
  return nil
end

-- Called by the host -------------------------------------------------------

--- Opens a diff tab. spec = {id, path, proposal = {lines, fileformat, eol}, original = same or nil}.
function M.open(spec)
  -- A new proposal for the file stands instead (the companion shows a kept accept again this way too).
  accepted[spec.path] = nil
  counter = counter + 1
  local n = counter
  local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
  local d = {
    id = spec.id,
    path = spec.path,
    agent = spec.agent or 'Gemini CLI',
    settled = false,
    prev_tab = vim.api.nvim_get_current_tabpage(),
    prev_win = vim.api.nvim_get_current_win(),
    -- Typing to the agent: where the keyboard goes back once the diff ends.
    from_terminal = mode == 't',
  }
  -- Typing into the proposal by accident would be worse than leaving Insert
  -- mode; from Terminal mode (the CLI's own terminal) the new tab needs Normal mode.
  if mode == 'i' or mode == 't' then
    vim.cmd('stopinsert')
  end

  vim.cmd('tabnew')
  d.tab = vim.api.nvim_get_current_tabpage()
  local left = vim.api.nvim_get_current_buf()
  vim.bo[left].buftype = 'nofile'
  vim.bo[left].bufhidden = 'wipe'
  vim.bo[left].swapfile = false
  pcall(vim.api.nvim_buf_set_name, left, scratch_name(n, spec.original and 'disk' or 'new-file', spec.path))
  fill(left, spec.original or { lines = { '' }, fileformat = 'unix', eol = false })
  vim.bo[left].modified = false
  vim.bo[left].modifiable = false
  detect_filetype(left, spec.path)
  vim.cmd('diffthis')

  vim.cmd('rightbelow vnew')
  local right = vim.api.nvim_get_current_buf()
  vim.bo[right].buftype = 'acwrite'
  vim.bo[right].bufhidden = 'wipe'
  vim.bo[right].swapfile = false
  pcall(vim.api.nvim_buf_set_name, right, scratch_name(n, 'proposed', spec.path))
  fill(right, spec.proposal)
  vim.bo[right].modified = false
  detect_filetype(right, spec.path)
  vim.cmd('diffthis')

  d.left, d.right = left, right
  d.group = vim.api.nvim_create_augroup('ide_companion_diff_' .. n, { clear = true })
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = d.group,
    buffer = right,
    callback = function()
      M.accept(d.id)
    end,
  })
  -- BufUnload, not BufWipeout alone: with 'bufhidden' wipe, :q unloads and wipes,
  -- :bd! only unloads; both mean the user closed the proposal.
  vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = d.group,
    buffer = right,
    callback = function()
      if not d.settled then
        vim.schedule(function()
          M.reject(d.id)
        end)
      end
    end,
  })
  diffs[d.id] = d

  local name = vim.fn.fnamemodify(spec.path, ':~:.')
  local unsaved = false
  for _, buf in ipairs(buffers_of(spec.path)) do
    unsaved = unsaved or vim.bo[buf].modified
  end
  local keys = ':w accepts, :q! rejects'
  if unsaved then
    show_hint(vim.api.nvim_get_current_win(), keys .. ' · ' .. name .. ' has unsaved changes (diff against disk; kept in its buffer)', true)
    if spec.words then
      later_notify(spec.words.unsaved, vim.log.levels.WARN)
    end
  else
    show_hint(vim.api.nvim_get_current_win(), keys .. ' · ' .. d.agent .. ' proposes changes to ' .. name, false)
    if spec.words then
      later_notify(spec.words.proposed)
    end
  end
  return { left = left, right = right }
end

--- The proposal's current state, or nil if the diff is gone.
function M.state(id)
  local d = diffs[id]
  if not d or not vim.api.nvim_buf_is_valid(d.right) then
    return nil
  end
  return read_state(d.right)
end

--- Keeps a settled diff's proposal in its tab as a plain scratch buffer (its
--- edits in it, :w FILE saves it); the on-disk side goes. False when the
--- proposal buffer is gone.
local function keep(d, why)
  pcall(vim.api.nvim_del_augroup_by_id, d.group)
  if vim.api.nvim_buf_is_valid(d.left) then
    pcall(vim.api.nvim_buf_delete, d.left, { force = true })
  end
  if not vim.api.nvim_buf_is_valid(d.right) then
    return false
  end
  vim.bo[d.right].buftype = 'nofile'
  vim.bo[d.right].bufhidden = 'hide'
  -- The window's hint said ":w accepts": no longer true, nobody takes an answer.
  for _, win in ipairs(vim.fn.win_findbuf(d.right)) do
    show_hint(win, 'kept: ' .. why .. ' · :w FILE saves it', true)
  end
  return true
end

--- The CLI (or the companion) closed the diff: no outcome is sent. When its
--- CLI went away (exited or died), nobody can take an answer, but the
--- proposal (and the user's edits in it) stays for the user. `message`: the
--- companion's words for it (diffWords.ts), if any.
function M.close(id, reason, message)
  local d = diffs[id]
  if not d or not settle(d) then
    return false
  end
  if reason == 'sessionClosed' then
    if keep(d, 'the ' .. d.agent .. ' session went away') and message then
      notify(message, vim.log.levels.WARN)
    end
    return true
  end
  wipe(d)
  if message then
    notify(message)
  end
  return true
end

--- reload (docs/editor-protocol.md): the agent wrote `path`; the companion
--- watched for it and sends the words. Unmodified buffers reread it without
--- the "changed on disk" prompt; a modified one is never dropped.
function M.reload(params)
  if params.holdsAccepted then
    accepted[params.path] = nil
  end
  local reloaded = 0
  for _, buf in ipairs(buffers_of(params.path)) do
    if vim.bo[buf].modified then
      notify(params.unsavedWarning, vim.log.levels.WARN)
    else
      vim.api.nvim_buf_call(buf, function()
        -- A local 'autoread' makes :checktime reload without the "changed on disk" prompt.
        vim.cmd('setlocal autoread')
        pcall(vim.cmd, 'silent checktime ' .. tonumber(buf))
        vim.cmd('set autoread<')
      end)
      reloaded = reloaded + 1
    end
  end
  return reloaded
end

-- User actions --------------------------------------------------------------

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
      if keep(d, 'the companion is not running') then
        notify(put(words.acceptUnsent, '{file}', vim.fn.fnamemodify(d.path, ':t')), vim.log.levels.ERROR)
      end
    end)
    return true
  end
  accepted[d.path] = content_of(state)
  vim.schedule(function()
    wipe(d)
  end)
  return true
end

function M.reject(id)
  local d = diffs[id]
  if not d or not settle(d) then
    return false
  end
  host.event({ type = 'diffRejected', diffId = id })
  vim.schedule(function()
    wipe(d)
  end)
  return true
end

--- The diff a command applies to: the one in the current tab, else the only one open.
function M.current()
  local d = diff_for_buf(vim.api.nvim_get_current_buf())
  if d then
    return d
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    d = diff_for_buf(vim.api.nvim_win_get_buf(win))
    if d then
      return d
    end
  end
  local only, count = nil, 0
  for _, candidate in pairs(diffs) do
    only, count = candidate, count + 1
  end
  if count == 1 then
    return only
  end
  return nil, count
end

function M.list()
  local out = {}
  for _, d in pairs(diffs) do
    table.insert(out, { id = d.id, path = d.path, proposal = d.right, original = d.left })
  end
  return out
end

--- The host died: no outcome can reach the CLI any more, but the user's work
--- must not go. Each proposal stays as keep() leaves it, and each accepted
--- text the file does not hold yet comes back the same way, in a tab of its
--- own. Returns the files' names, for the one message that says so.
function M.keep_all()
  local kept = {}
  for _, d in pairs(diffs) do
    if settle(d) and keep(d, 'the companion stopped') then
      table.insert(kept, vim.fn.fnamemodify(d.path, ':t'))
    end
  end
  -- Each in a tab of its own; the user stays where they are.
  local back = vim.api.nvim_get_current_tabpage()
  for path, content in pairs(accepted) do
    if not file_holds(path, text_of(content)) then
      counter = counter + 1
      vim.cmd('tabnew')
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'hide'
      vim.bo[buf].swapfile = false
      pcall(vim.api.nvim_buf_set_name, buf, scratch_name(counter, 'accepted', path))
      fill(buf, content)
      detect_filetype(buf, path)
      table.insert(kept, vim.fn.fnamemodify(path, ':t'))
    end
  end
  if vim.api.nvim_tabpage_is_valid(back) then
    vim.api.nvim_set_current_tabpage(back)
  end
  accepted = {}
  return kept
end

--- The host went away: its diffs can no longer be answered.
function M.close_all()
  for _, d in pairs(diffs) do
    if settle(d) then
      wipe(d)
    end
  end
end

return M
