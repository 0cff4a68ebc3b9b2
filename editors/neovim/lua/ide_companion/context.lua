-- Editor events -> the editor vocabulary (docs/editor-protocol.md), sent to the
-- host as `event` notifications: a few API reads and one rpcnotify each,
-- nothing waits for the host, and the host decides what the CLI sees.
local host = require('ide_companion.host')

local M = {}

local GROUP = 'ide_companion_context'
local last_buf = nil -- the buffer of the last focus/cursor sent: moves in it go as the `cursor` shorthand, the host knowing its file
local renaming = {} -- buf -> its name before :file / :saveas
local extra_roots = {}

-- A lone move reaches the host this long after it; moves meanwhile ride along.
M.CURSOR_DELAY_MS = 10
local timer = nil -- one libuv timer, re-armed once per burst (never a new one per move)
local pending = false -- a cursor update is due when the timer fires
local last_read = -math.huge -- vim.loop.now() when a cursor update was last read

-- Per cursor move: vim.bo[buf] costs 10x the API call; nvim_buf_get_option is deprecated from 0.10.
local buf_option
if vim.fn.has('nvim-0.10') == 1 then
  buf_option = function(buf, name)
    return vim.api.nvim_get_option_value(name, { buf = buf })
  end
else
  buf_option = vim.api.nvim_buf_get_option
end

--- The file a buffer shows (an absolute local path: no "fugitive://..."), or
--- nil for terminals, help, scratch and plugin buffers.
local function file_of(buf)
  local name = vim.api.nvim_buf_is_valid(buf) and buf_option(buf, 'buftype') == '' and vim.api.nvim_buf_get_name(buf) or ''
  if not name:find('^%a[%w+.-]*://') and (name:sub(1, 1) == '/' or name:find('^%a:[\\/]')) then
    return name
  end
end

--- A file buffer the user has open: listed (help and plugin buffers are not).
local function open_file_of(buf)
  return vim.api.nvim_buf_is_valid(buf) and buf_option(buf, 'buflisted') and file_of(buf) or nil
end

M.file_of = file_of
M.open_file_of = open_file_of
M.buf_option = buf_option

--- 'char', 'line' or 'block' in Visual or Select mode, else nil.
local KINDS = { v = 'char', s = 'char', V = 'line', S = 'line', ['\22'] = 'block', ['\19'] = 'block' }

--- Line and character (not byte) of the cursor and, in Visual and Select mode, of the anchor and
--- the kind ('line', 'block'; nil: charwise): five values, no table, as this runs on every move.
local function read_position()
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local character = math.max(vim.fn.charcol('.'), 1)
  local kind = KINDS[vim.api.nvim_get_mode().mode:sub(1, 1)]
  if kind then
    local anchor = vim.fn.getcharpos('v')
    return line, character, anchor[2], math.max(anchor[3], 1), kind ~= 'char' and kind or nil
  end
  return line, character
end

--- Byte length of the UTF-8 character starting at byte `i` of `s`.
local function char_len(s, i)
  local b = s:byte(i) or 0
  return b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
end

--- selectedText: the current window's selection, or the one just ended there (its marks: asked after
--- <Esc>, the host keeps it). Read up to the line of its 4 * max-th byte, `max` characters surely in
--- (none is over 4 bytes), and cut past that: the host cuts it to the CLI's limit and marks the cut.
function M.selected_text(max)
  local kind = KINDS[vim.api.nvim_get_mode().mode:sub(1, 1)]
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if not kind then
    kind, a, b = KINDS[vim.fn.visualmode()], vim.fn.getpos("'<"), vim.fn.getpos("'>")
    if not kind or a[2] == 0 or not open_file_of(0) then
      return nil
    end
  end
  local sl, sc, el, ec = a[2], a[3], b[2], b[3]
  if sl > el or (sl == el and sc > ec) then
    sl, sc, el, ec = el, ec, sl, sc
  end
  local cap = vim.fn.byte2line(vim.fn.line2byte(sl) + sc - 1 + 4 * max)
  local lines = vim.api.nvim_buf_get_lines(0, sl - 1, cap > 0 and math.min(el, cap) or el, false)
  if #lines == 0 then
    return nil
  end
  if kind == 'block' then
    -- Byte columns of the two corners; with tabs or wide characters this is approximate.
    local left, right = math.min(sc, ec), math.max(sc, ec)
    for i, line in ipairs(lines) do
      lines[i] = line:sub(left, right + char_len(line, right) - 1)
    end
  elseif kind == 'char' then
    if sl + #lines > el then
      local last = lines[#lines]
      lines[#lines] = last:sub(1, vim.o.selection == 'exclusive' and ec - 1 or ec + char_len(last, ec) - 1)
    end
    -- The end is cut first, so `sc` still counts from the start of the first line.
    lines[1] = lines[1]:sub(sc)
  end
  local text = table.concat(lines, '\n'):sub(1, 4 * max + 4)
  return text ~= '' and text or nil
end

--- Sends the current window's position and selection range (the host asks for the text) if it shows a file.
local function send_position(method)
  local buf = vim.api.nvim_get_current_buf()
  if method == 'cursor' and buf == last_buf then
    host.cursor(read_position())
    return
  end
  local path = open_file_of(buf)
  if not path then
    return
  end
  last_buf = buf
  local line, character, anchor_line, anchor_character, kind = read_position()
  host.event({
    type = method,
    path = path,
    cursor = { line = line, character = character },
    anchor = anchor_line and { line = anchor_line, character = anchor_character } or nil,
    selectionKind = kind,
  })
end

--- Workspace roots: the global cwd, every tab-local and window-local cwd
--- (:tcd, :lcd), and the configured extra roots, as real paths (the host drops repeats).
function M.roots(extra)
  local out = {}
  local function add(dir)
    out[#out + 1] = dir ~= '' and (vim.loop.fs_realpath(dir) or dir) or nil
  end
  add(vim.fn.getcwd(-1, -1))
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local tabnr = vim.api.nvim_tabpage_get_number(tab)
    add(vim.fn.getcwd(-1, tabnr))
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      local winnr = vim.api.nvim_win_get_number(win)
      if vim.fn.haslocaldir(winnr, tabnr) == 1 then
        add(vim.fn.getcwd(winnr, tabnr))
      end
    end
  end
  for _, dir in ipairs(extra or {}) do
    add(dir)
  end
  return out
end

--- The host's tracker ignores roots that did not change.
local function send_roots()
  host.event({ type = 'roots', roots = M.roots(extra_roots) })
end

local function send_path(method, buf)
  local path = file_of(buf)
  if path then
    host.event({ type = method, path = path })
  end
end

local function cancel()
  if pending and timer then
    pending = false
    timer:stop()
  end
end

-- In the main loop (the timer's own callback may not call the API).
local on_timer = vim.schedule_wrap(function()
  if pending then
    pending = false
    last_read = vim.loop.now()
    send_position('cursor')
  end
end)

--- A move after a pause of CURSOR_DELAY_MS is sent at once (a timer wake-up costs more than the
--- read); a sooner one arms the timer, once per burst (a held key), read when it fires.
local function moved()
  if pending then
    return
  end
  local now = vim.loop.now()
  local since = now - last_read
  if since >= M.CURSOR_DELAY_MS then
    last_read = now
    send_position('cursor')
  else
    pending = true
    timer:start(M.CURSOR_DELAY_MS - since, 0, on_timer)
  end
end

function M.attach(cfg)
  extra_roots = cfg.roots or {}
  last_buf = nil
  local group = vim.api.nvim_create_augroup(GROUP, { clear = true })
  local function au(events, callback)
    vim.api.nvim_create_autocmd(events, { group = group, callback = callback })
  end
  au({ 'BufEnter', 'WinEnter', 'FocusGained' }, function()
    -- A pending cursor update would only repeat what focus sends now.
    cancel()
    send_position('focus')
  end)
  timer = timer or vim.loop.new_timer()
  au({ 'CursorMoved', 'CursorMovedI', 'ModeChanged' }, moved)
  au('BufAdd', function(args)
    -- Later: a help or plugin buffer gets its 'buftype' and 'nobuflisted' only after BufAdd.
    vim.schedule(function()
      if open_file_of(args.buf) then
        send_path('open', args.buf)
      end
    end)
  end)
  for event, method in pairs({ BufDelete = 'close', BufWipeout = 'close', BufWritePost = 'saved' }) do
    au(event, function(args)
      send_path(method, args.buf)
    end)
  end
  au('BufFilePre', function(args)
    renaming[args.buf] = file_of(args.buf)
  end)
  au('BufFilePost', function(args)
    local from, to = renaming[args.buf], file_of(args.buf)
    renaming[args.buf] = nil
    if from and to then
      host.event({ type = 'rename', from = from, to = to })
    elseif from then
      host.event({ type = 'close', path = from })
    elseif to then
      send_path('open', args.buf)
    end
  end)
  au({ 'DirChanged', 'TabClosed', 'WinClosed', 'TabNew' }, function()
    -- After the window or tab is really gone (WinClosed fires before).
    vim.schedule(send_roots)
  end)
  -- What the host must know at once: every listed file buffer, the current one, the roots.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if buf ~= vim.api.nvim_get_current_buf() and open_file_of(buf) then
      send_path('open', buf)
    end
  end
  send_position('focus')
  send_roots()
end

function M.detach()
  pcall(vim.api.nvim_del_augroup_by_name, GROUP)
  cancel()
  last_buf = nil
  renaming = {}
end

return M
