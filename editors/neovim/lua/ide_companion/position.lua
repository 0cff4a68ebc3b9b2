-- Cursor and visual selection of the current window, as the CLI wants them:
-- 1-based line and character (characters, not bytes) and the selected text.
local M = {}

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

--- The text of the current window's selection of `kind`, at least `max`
--- UTF-16 units of it (or all): the host cuts and marks it (its `selectedText`
--- action, read once per context update, never per move).
local function selected_text(buf, kind, max)
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  local sl, sc, el, ec = a[2], a[3], b[2], b[3]
  if sl > el or (sl == el and sc > ec) then
    sl, sc, el, ec = el, ec, sl, sc
  end
  local lines, complete = lines_capped(buf, sl, el, max)
  if #lines == 0 then
    return nil
  end
  if kind == 'line' then
    return table.concat(lines, '\n')
  end
  if kind == 'block' then
    -- Byte columns of the two corners; with tabs or wide characters this is approximate.
    local left, right = math.min(sc, ec), math.max(sc, ec)
    for i, line in ipairs(lines) do
      lines[i] = line:sub(left, right + char_len(line, right) - 1)
    end
    return table.concat(lines, '\n')
  end
  if complete then
    local last = lines[#lines]
    local stop = vim.o.selection == 'exclusive' and ec - 1 or ec + char_len(last, ec) - 1
    lines[#lines] = last:sub(1, stop)
  end
  -- The end is cut first, so `sc` still counts from the start of the first line.
  lines[1] = lines[1]:sub(sc)
  return table.concat(lines, '\n')
end

--- Line and character of the current window's cursor and, in Visual and
--- Select mode, of the selection's other end (its anchor) and the kind
--- ('line', 'block'; nil for characterwise). Five values, no table: this runs
--- on every reported cursor move; the text is the host's to ask for.
function M.read()
  local line = vim.api.nvim_win_get_cursor(0)[1]
  -- charcol() counts characters, where the cursor column counts bytes.
  local character = math.max(vim.fn.charcol('.'), 1)
  local kind = visual_kind(vim.api.nvim_get_mode().mode)
  if kind then
    local anchor = vim.fn.getcharpos('v')
    return line, character, anchor[2], math.max(anchor[3], 1), kind ~= 'char' and kind or nil
  end
  return line, character
end

--- The selected text of the current window (nil outside Visual and Select mode), at least `max` UTF-16 units of it.
function M.selected_text(max)
  local kind = visual_kind(vim.api.nvim_get_mode().mode)
  if not kind then
    return nil
  end
  local text = selected_text(vim.api.nvim_get_current_buf(), kind, max)
  if text == '' then
    return nil
  end
  return text
end

return M
