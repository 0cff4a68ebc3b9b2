-- Cursor and visual selection of the current window, as the CLI wants them:
-- 1-based line and character (characters, not bytes) and the selected text.
local M = {}

-- The CLI keeps 16384 UTF-16 units of a selection; the host's tracker makes that
-- cut and marks it. Collecting one unit more than that is enough for the mark,
-- and bounds the work per cursor move in a huge selection.
M.MAX_SELECTION_UNITS = 16384 + 1
local CHUNK_LINES = 256

--- Length of `s` in UTF-16 code units (the signature changed in Neovim 0.11).
local utf16_len
if vim.fn.has('nvim-0.11') == 1 then
  utf16_len = function(s)
    return vim.str_utfindex(s, 'utf-16')
  end
else
  utf16_len = function(s)
    local _, units = vim.str_utfindex(s)
    return units
  end
end

--- Byte length of the UTF-8 character starting at byte `i` of `s`.
local function char_len(s, i)
  local b = s:byte(i)
  if not b or b < 0xC0 then
    return 1
  elseif b < 0xE0 then
    return 2
  elseif b < 0xF0 then
    return 3
  end
  return 4
end

--- `s` cut to at most `n` bytes, never inside a UTF-8 character.
local function cut_utf8(s, n)
  if #s <= n then
    return s
  end
  local stop = n
  -- Back off while the next byte continues a character.
  while stop > 0 do
    local b = s:byte(stop + 1)
    if b < 0x80 or b >= 0xC0 then
      break
    end
    stop = stop - 1
  end
  return s:sub(1, stop)
end

--- Lines first..last (1-based, inclusive) of buf, stopping once `max_units`
--- UTF-16 units are collected. Returns the lines and whether all were read.
local function lines_capped(buf, first, last, max_units)
  local out, units = {}, 0
  local row = first
  while row <= last do
    local chunk = vim.api.nvim_buf_get_lines(buf, row - 1, math.min(last, row + CHUNK_LINES - 1), false)
    if #chunk == 0 then
      break
    end
    for _, line in ipairs(chunk) do
      local line_units = utf16_len(line)
      if units + line_units > max_units then
        -- Enough of this line to pass the limit: a UTF-16 unit is at most 3 bytes.
        table.insert(out, cut_utf8(line, (max_units - units + 1) * 3))
        return out, false
      end
      table.insert(out, line)
      units = units + line_units + 1
    end
    row = row + #chunk
  end
  return out, true
end

--- 'char', 'line' or 'block' in Visual or Select mode, else nil.
local function visual_kind(mode)
  local m = mode:sub(1, 1)
  if m == 'v' or m == 's' then
    return 'char'
  elseif m == 'V' or m == 'S' then
    return 'line'
  elseif m == '\22' or m == '\19' then
    return 'block'
  end
  return nil
end

-- The last characterwise or linewise selection cut at the cap, while its
-- start, the buffer and its text stay the same: moving the far end of a
-- selection longer than the CLI keeps (past the lines read) changes nothing it
-- sees, and is not read again.
local capped = { buf = -1, tick = -1, kind = nil, sl = -1, sc = -1, next_row = math.huge, text = nil }

--- The selected text (nil if none) and whether the selection is backward: the
--- cursor before its other end (line first, then column), in every kind.
local function selected_text(buf, kind)
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  local sl, sc, el, ec = a[2], a[3], b[2], b[3]
  local backward = sl > el or (sl == el and sc > ec)
  if backward then
    sl, sc, el, ec = el, ec, sl, sc
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  if
    el >= capped.next_row
    and capped.buf == buf
    and capped.tick == tick
    and capped.kind == kind
    and capped.sl == sl
    and capped.sc == sc
  then
    return capped.text, backward
  end
  capped.next_row = math.huge
  local lines, complete = lines_capped(buf, sl, el, M.MAX_SELECTION_UNITS)
  if #lines == 0 then
    return nil, backward
  end
  if not complete and kind ~= 'block' then
    if kind == 'char' then
      -- Cut at the cap, its end is not cut; its start is.
      lines[1] = lines[1]:sub(sc)
    end
    local text = table.concat(lines, '\n')
    capped = { buf = buf, tick = tick, kind = kind, sl = sl, sc = sc, next_row = sl + #lines, text = text }
    return text, backward
  end
  if kind == 'line' then
    return table.concat(lines, '\n'), backward
  end
  if kind == 'block' then
    -- Byte columns of the two corners; with tabs or wide characters this is approximate.
    local left, right = math.min(sc, ec), math.max(sc, ec)
    for i, line in ipairs(lines) do
      lines[i] = line:sub(left, right + char_len(line, right) - 1)
    end
    return table.concat(lines, '\n'), backward
  end
  local exclusive = vim.o.selection == 'exclusive'
  if complete then
    local last = lines[#lines]
    local stop = exclusive and ec - 1 or ec + char_len(last, ec) - 1
    lines[#lines] = last:sub(1, stop)
  end
  -- The end is cut first, so `sc` still counts from the start of the first line.
  lines[1] = lines[1]:sub(sc)
  return table.concat(lines, '\n'), backward
end

--- Line, character, selected text (nil outside Visual and Select mode) of the
--- current window, whose buffer is `buf`, and true if that selection was made
--- backward (the cursor at its start; nil when forward or nothing is
--- selected). Four values, no table: this runs on every reported cursor move.
function M.read(buf)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  -- charcol() counts characters, where the cursor column counts bytes.
  local character = math.max(vim.fn.charcol('.'), 1)
  local kind = visual_kind(vim.api.nvim_get_mode().mode)
  if kind then
    local text, backward = selected_text(buf, kind)
    if text and text ~= '' then
      return line, character, text, backward or nil
    end
  end
  return line, character, nil, nil
end

return M
