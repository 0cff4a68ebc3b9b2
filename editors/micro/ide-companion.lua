-- ide-companion for micro: a thin end of the JSON-lines host (docs/editor-protocol.md).
-- micro reports positions and answers actions; every rule is the host's.
VERSION = "0.1.0"

local micro = import("micro")
local config = import("micro/config")
local shell = import("micro/shell")
local buffer = import("micro/buffer")
local util = import("micro/util")
local goos = import("os")
local filepath = import("path/filepath")

config.RegisterGlobalOption("ide_companion", "node", "node")
config.RegisterGlobalOption("ide_companion", "host", "")
config.RegisterGlobalOption("ide_companion", "agent", "gemini")
config.RegisterGlobalOption("ide_companion", "ampeditfile", "review")
config.RegisterGlobalOption("ide_companion", "log", "")

local M = _M
local NULL, ARR = {}, {}
local job, ready, words = nil, false, {}
local inbuf, deaths = {}, {}
local diffs = {}        -- diffId -> {path, name, shown, tab, pane, back}
local last, timer = nil, false
local summary = ""

-- JSON: micro's Lua has no codec; these are the few lines the host's lines need.
local ESC = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function enc(v)
  local t = type(v)
  if t == "string" then
    return '"' .. (v:gsub('[%c"\\]', function(c) return ESC[c] or string.format("\\u%04x", c:byte()) end)) .. '"'
  elseif t == "number" then return string.format("%d", v)
  elseif t == "boolean" then return tostring(v)
  elseif v == nil or v == NULL then return "null" end
  local out = {}
  if getmetatable(v) == ARR then
    for _, x in ipairs(v) do out[#out + 1] = enc(x) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  for k, x in pairs(v) do out[#out + 1] = enc(tostring(k)) .. ":" .. enc(x) end
  return "{" .. table.concat(out, ",") .. "}"
end
local function arr(t) return setmetatable(t or {}, ARR) end

local UNESC = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
local function dec(s, i)
  i = s:find("%S", i)
  local c = s:sub(i, i)
  if c == "{" or c == "[" then
    local t, close = {}, (c == "{" and "}" or "]")
    i = s:find("%S", i + 1)
    if s:sub(i, i) == close then return t, i + 1 end
    while true do
      local k, v
      if close == "}" then
        k, i = dec(s, i)
        i = s:find(":", i, true) + 1
      else k = #t + 1 end
      v, i = dec(s, i)
      t[k] = v
      i = s:find("[,%]}]", i)
      if s:sub(i, i) ~= "," then return t, i + 1 end
      i = i + 1
    end
  elseif c == '"' then
    local parts, j = {}, i + 1
    while true do
      local k = s:find('["\\]', j)
      parts[#parts + 1] = s:sub(j, k - 1)
      if s:sub(k, k) == '"' then return table.concat(parts), k + 1 end
      local e = s:sub(k + 1, k + 1)
      if e == "u" then
        local cp = tonumber(s:sub(k + 2, k + 5), 16)
        j = k + 6
        local lo = s:sub(j, j + 1) == "\\u" and tonumber(s:sub(j + 2, j + 5), 16)
        if cp >= 0xD800 and cp < 0xDC00 and lo and lo >= 0xDC00 and lo < 0xE000 then
          cp, j = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00), j + 6
        end
        parts[#parts + 1] = util.RuneStr(cp)
      else
        parts[#parts + 1] = UNESC[e] or e
        j = k + 2
      end
    end
  end
  local word = s:match("^[%w%.%+%-]+", i)
  local lit = { ["true"] = true, ["false"] = false }
  if lit[word] ~= nil then return lit[word], i + #word end
  if word == "null" then return nil, i + 4 end
  return tonumber(word), i + #word
end

local function send(m)
  if job then shell.JobSend(job, enc(m) .. "\n") end
end
local function say(msg) micro.InfoBar():Message("ide-companion: " .. msg) end

-- Panes, tabs and the buffers of files (not the diff's own buffers, not terminals).
local function panes()
  local list, tabs = {}, micro.Tabs()
  for ti = 1, #tabs.List do
    local tab = tabs.List[ti]
    for pi = 1, #tab.Panes do
      local p = tab.Panes[pi]
      if p.Buf ~= nil then list[#list + 1] = { pane = p, tab = tab, ti = ti, pi = pi } end
    end
  end
  return list
end
local function diffOf(name)
  for id, d in pairs(diffs) do if d.name == name or d.orig == name then return id, d end end
end
local function fileOf(buf)
  if buf == nil or buf.Path == "" or buf.Type.Kind ~= buffer.BTDefault or diffOf(buf.AbsPath) then return nil end
  return buf.AbsPath
end
local function paneOf(path)
  for _, e in ipairs(panes()) do if fileOf(e.pane.Buf) == path then return e end end
end
local function pos(loc) return { line = loc.Y + 1, character = loc.X + 1 } end
local function text(buf) return util.String(buf:Bytes()) end

-- Positions: read and sent at most once per 30 ms, when a timer ends (a `sleep` job is micro
-- 2.0's only timer that calls back on its main loop): a key costs a flag test, never a write.
local function position()
  local bp = micro.CurPane()
  local path = bp and fileOf(bp.Buf)
  if not path then return nil end
  local c = bp.Buf:GetActiveCursor()
  local m = { path = path, cursor = pos(c.Loc) }
  if c:HasSelection() then
    local a, b = c.CurSelection[1], c.CurSelection[2]
    m.anchor = pos((a.X == c.Loc.X and a.Y == c.Loc.Y) and b or a)
  end
  return m
end
local function key(m) return m and (m.path .. m.cursor.line .. ":" .. m.cursor.character .. (m.anchor and (m.anchor.line .. ":" .. m.anchor.character) or "")) end
local function sendPosition()
  local m = position()
  if not m or key(m) == key(last) then return false end
  m.type = (last and last.path == m.path) and "cursor" or "focus"
  last = m
  send(m)
  return true
end
local function tick()
  timer = sendPosition() and shell.JobSpawn("sleep", { "0.03" }, nil, nil, tick) ~= nil
end
function moved()
  if ready and not timer then
    timer = true
    shell.JobSpawn("sleep", { "0.03" }, nil, nil, tick)
  end
  return true
end
for name in ([[CursorUp CursorDown CursorLeft CursorRight CursorPageUp CursorPageDown CursorStart CursorEnd
  SelectUp SelectDown SelectLeft SelectRight SelectWordRight SelectWordLeft SelectToStart SelectToEnd SelectLine
  SelectToStartOfLine SelectToStartOfText SelectToEndOfLine SelectAll SelectPageUp SelectPageDown WordRight WordLeft
  StartOfLine StartOfText StartOfTextToggle EndOfLine ParagraphPrevious ParagraphNext InsertNewline Backspace Delete
  InsertTab Undo Redo Cut CutLine Paste PastePrimary DeleteWordRight DeleteWordLeft MoveLinesUp MoveLinesDown
  PageUp PageDown HalfPageUp HalfPageDown Start End MousePress MouseMultiCursor Escape Deselect FindNext
  FindPrevious JumpToMatchingBrace NextSplit PreviousSplit NextTab PreviousTab Unsplit VSplit HSplit AddTab
  JumpLine Center]]):gmatch("%S+") do
  M["on" .. name] = moved
end
function onRune() return moved() end
function onBufPaneOpen() moved() end
function onBufferOpen(buf)
  local path = fileOf(buf)
  if path then send({ type = "open", path = path }) end
  moved()
end
function onSave(bp)
  local path = fileOf(bp.Buf)
  if path then send({ type = "saved", path = path }) end
  return true
end

-- The diff: a tab with the original (read-only) beside the proposal, which the user edits.
local function closeView(id)
  local d = diffs[id]
  diffs[id] = nil
  if not d then return end
  local tabs = micro.Tabs()
  local wasActive = false
  for ti = 1, #tabs.List do
    local tab = tabs.List[ti]
    for pi = 1, #tab.Panes do
      local b = tab.Panes[pi].Buf
      if b ~= nil and (b.AbsPath == d.name or b.AbsPath == d.orig) then
        wasActive = wasActive or ti == tabs:Active() + 1
        if #tabs.List == 1 then micro.InfoBar():AddTab() end
        for qi = 1, #tab.Panes do if tab.Panes[qi].Buf ~= nil then tab.Panes[qi].Buf:Close() end end
        tabs:RemoveTab(tab.Panes[1]:ID())
        break
      end
    end
  end
  -- Back where the user was when the diff opened (a file's pane, or the agent's terminal).
  if wasActive or tabs:Active() + 1 > #tabs.List then
    for ti = 1, #tabs.List do
      local tab = tabs.List[ti]
      for pi = 1, #tab.Panes do
        if tab.Panes[pi]:ID() == d.back then
          tabs:SetActive(ti - 1)
          tab:SetActive(pi - 1)
        end
      end
    end
  end
end
local function decide(id, accepted)
  local d = diffs[id]
  if not job then return say((words.acceptUnsent or "the companion is not running"):gsub("{file}", function() return d.path end)) end
  local now = text(d.buf)
  if accepted then send({ type = "diffAccepted", diffId = id, content = now ~= d.shown and now or nil })
  else send({ type = "diffRejected", diffId = id }) end
  closeView(id)
end
local function here(bp) return select(1, diffOf(bp.Buf.AbsPath)) end
function preSave(bp)
  local id = here(bp)
  if id then decide(id, true) return false end
  return true
end
function preQuit(bp)
  local id = here(bp)
  if id then decide(id, false) return false end
  return true
end
function onQuit(bp)
  local path = fileOf(bp.Buf)
  if path and not paneOf(path) then send({ type = "close", path = path }) end
  return true
end

local actions = {}
function actions.showDiff(p)
  local short = p.diffId:sub(1, 8)
  local base = filepath.Base(p.filePath)
  local orig = buffer.NewBuffer(p.originalContent or "", "original of " .. base .. " [" .. short .. "]")
  local prop = buffer.NewBuffer(p.newContent, "proposal for " .. base .. " [" .. short .. "]")
  orig:SetOptionNative("readonly", true)
  prop:SetDiffBase(p.originalContent or "")
  prop:SetOptionNative("diffgutter", true)
  local tabs = micro.Tabs()
  local back, backId = tabs.List[tabs:Active() + 1], nil
  for pi = 1, #back.Panes do if back.Panes[pi]:IsActive() then backId = back.Panes[pi]:ID() end end
  micro.InfoBar():AddTab()
  local left = micro.CurPane()
  left:OpenBuffer(orig)
  left:VSplitIndex(prop, true)
  diffs[p.diffId] = { path = p.filePath, buf = prop, name = prop.AbsPath, orig = orig.AbsPath, shown = text(prop), back = backId }
  if p.kept then tabs:SetActive(tabs:Active() - 1) end
  return NULL
end
function actions.diffText(p)
  local d = diffs[p.diffId]
  local now = d and text(d.buf)
  return { text = (d and now ~= d.shown) and now or NULL }
end
function actions.closeDiff(p)
  closeView(p.diffId)
  if p.message then say(p.message) end
  return NULL
end
function actions.selectedText()
  local bp = micro.CurPane()
  local c = bp and bp.Buf:GetActiveCursor()
  return { text = (c and c:HasSelection()) and util.String(c:GetSelection()) or NULL }
end
function actions.getSelection()
  local bp = micro.CurPane()
  local path = bp and fileOf(bp.Buf)
  local c = path and bp.Buf:GetActiveCursor()
  if not (c and c:HasSelection()) then return { selection = NULL } end
  local a, b = c.CurSelection[1], c.CurSelection[2]
  if b.Y < a.Y or (b.Y == a.Y and b.X < a.X) then a, b = b, a end
  return { selection = { path = path, text = util.String(c:GetSelection()), start = pos(a), ["end"] = pos(b) } }
end
function actions.getOpenEditors()
  local out, seen, cur = arr(), {}, micro.CurPane()
  local active = cur and fileOf(cur.Buf)
  for _, e in ipairs(panes()) do
    local path = fileOf(e.pane.Buf)
    if path and not seen[path] then
      seen[path] = true
      out[#out + 1] = { path = path, isActive = path == active, isDirty = e.pane.Buf:Modified(), lineCount = e.pane.Buf:LinesNum() }
    end
  end
  return { editors = out }
end
function actions.openFile(p)
  local e = paneOf(p.path)
  if e then
    micro.Tabs():SetActive(e.ti - 1)
    e.tab:SetActive(e.pi - 1)
  else
    local buf, err = buffer.NewBufferFromFile(p.path)
    if err ~= nil then error(err:Error()) end
    -- In a tab of its own (micro's `> tab FILE`), unless the pane holds micro's empty start buffer: the user's files stay open.
    local bp = micro.CurPane()
    if not bp or bp.Buf.Path ~= "" or bp.Buf:Modified() then
      micro.InfoBar():AddTab()
      bp = micro.CurPane()
    end
    bp:OpenBuffer(buf)
  end
  local bp = micro.CurPane()
  local b, c = bp.Buf, bp.Buf:GetActiveCursor()
  local function loc(line, col)
    local last = b:LinesNum()
    if last > 1 and b:Line(last - 1) == "" then last = last - 1 end
    local y = math.max(0, math.min(line, last) - 1)
    local len = util.CharacterCountInString(b:Line(y))
    return buffer.Loc(math.min(math.max((col or 1) - 1, 0), len), y)
  end
  if p.line then
    c:ResetSelection()
    local from = loc(p.line, p.column)
    c:GotoLoc(from)
    if p.endLine and p.endLine >= p.line then
      local to = loc(p.endLine, p.endColumn or 1e9)
      c:SetSelectionStart(from)
      c:SetSelectionEnd(to)
      c:GotoLoc(to)
    end
  end
  bp:Relocate()
  sendPosition()
  return NULL
end
function actions.closeFile(p)
  for _, e in ipairs(panes()) do
    if fileOf(e.pane.Buf) == p.path and not e.pane.Buf:Modified() then e.pane:OpenBuffer(buffer.NewBuffer("", "")) end
  end
  return NULL
end
function actions.checkDocumentDirty(p)
  local e = paneOf(p.path)
  if not e then return { isOpen = false, isDirty = false } end
  local b = e.pane.Buf
  return { isOpen = true, isDirty = b:Modified(), readOnly = b.Settings["readonly"], changedOnDisk = b:ExternallyModified() }
end
function actions.saveDocument(p)
  local e = paneOf(p.path)
  if not e then return { saved = false, message = p.path .. " is not open in micro" } end
  if not e.pane.Buf:Modified() then return { saved = true, message = "no unsaved changes" } end
  local err = e.pane.Buf:Save()
  return { saved = err == nil and not e.pane.Buf:Modified(), message = err ~= nil and err:Error() or nil }
end
function actions.reload(p)
  for _, e in ipairs(panes()) do
    if fileOf(e.pane.Buf) == p.path then
      if e.pane.Buf:Modified() then say(p.unsavedWarning) else e.pane.Buf:ReOpen() end
    end
  end
  return NULL
end
local SEVERITY = { [buffer.MTInfo] = "information", [buffer.MTWarning] = "warning", [buffer.MTError] = "error" }
function actions.getDiagnostics(p)
  local out, seen = arr(), {}
  for _, e in ipairs(panes()) do
    local path, b = fileOf(e.pane.Buf), e.pane.Buf
    if path and not seen[path] and (not p.path or p.path == path) then
      seen[path] = true
      local ok, n = pcall(function() return #b.Messages end) -- a nil slice (no messages yet) has no length
      for i = 1, ok and n or 0 do
        local m = b.Messages[i]
        out[#out + 1] = { path = path, message = m.Msg, severity = SEVERITY[m.Kind] or "information", source = m.Owner, range = { start = pos(buffer.Loc(math.max(m.Start.X, 0), m.Start.Y)), ["end"] = pos(m.End.X < 0 and buffer.Loc(util.CharacterCountInString(b:Line(m.End.Y)), m.End.Y) or m.End) } }
      end
    end
  end
  return { diagnostics = out }
end

-- The host's lines, split from the job's chunks without copying what came before.
local function receive(line)
  local ok, m = pcall(dec, line, 1)
  if not ok or type(m) ~= "table" then return end
  if m.type == "request" then
    local fn = actions[m.action]
    local fine, result = pcall(fn or error, fn and (m.params or {}) or ("micro has no " .. tostring(m.action)))
    if fine then send({ type = "response", id = m.id, result = result == nil and NULL or result })
    else send({ type = "response", id = m.id, error = tostring(result) }) end
  elseif m.type == "ready" then
    ready, words, summary = true, m.words or {}, m.summary or ""
    -- The agent's terminal (`> ide-agent`, `> term gemini`) inherits micro's environment.
    for k, v in pairs(m.env or {}) do goos.Setenv(k, v) end
    moved()
  elseif m.type == "sessions" then
    summary = m.summary or ""
    if m.said and #m.said > 0 then say(table.concat(m.said, "; ")) end
  elseif m.type == "error" then micro.InfoBar():Error("ide-companion: " .. tostring(m.message))
  end
end
local function onOut(chunk)
  local start = 1
  while true do
    local nl = chunk:find("\n", start, true)
    if not nl then
      inbuf[#inbuf + 1] = chunk:sub(start)
      return
    end
    inbuf[#inbuf + 1] = chunk:sub(start, nl - 1)
    local line = table.concat(inbuf)
    inbuf, start = {}, nl + 1
    -- An error in a job's callback would end micro: it is shown instead.
    local ok, err = pcall(receive, line)
    if not ok then micro.InfoBar():Error("ide-companion: " .. tostring(err)) end
  end
end

local function hostPath()
  local own = config.GetGlobalOption("ide_companion.host")
  if own ~= "" then return own end
  for _, p in ipairs({ config.ConfigDir .. "/plug/ide-companion/host/ide-companion-bridge.mjs", goos.Getenv("IDE_COMPANION_BRIDGE_HOST") }) do
    local _, err = goos.Stat(p)
    if p ~= "" and err == nil then return p end
  end
end
local start
local function exited()
  job, ready, last, inbuf = nil, false, nil, {}
  local now = os.time()
  local recent = {}
  for _, t in ipairs(deaths) do if now - t < 180 then recent[#recent + 1] = t end end
  recent[#recent + 1] = now
  deaths = recent
  local how = "it exited"
  if #recent >= 5 then
    return micro.InfoBar():Error((words.notRestarted or "the companion host stopped"):gsub("{count}", #recent):gsub("{how}", how))
  end
  say((words.restarted or "the companion host was restarted"):gsub("{how}", how))
  start()
end
function start()
  local host = hostPath()
  if not host then return micro.InfoBar():Error("ide-companion: the host is missing; run `ide-companion install micro`") end
  local wd = goos.Getwd()
  -- Arguments, never a command line. The host's log goes to ide_companion.log (or nowhere: micro keeps a job's output).
  local log = config.GetGlobalOption("ide_companion.log")
  job = shell.JobSpawn("sh", { "-c", 'l=$1; shift; exec "$@" 2>>"$l"', "sh", log ~= "" and log or "/dev/null", config.GetGlobalOption("ide_companion.node"), host }, onOut, nil, exited)
  send({ type = "hello", protocol = 1, ide = { name = "micro", displayName = "micro" }, pid = goos.Getpid(), roots = arr({ wd }),
    ampEditFile = config.GetGlobalOption("ide_companion.ampeditfile") == "buffer" and "buffer" or nil,
    capabilities = arr({ "openFile", "getOpenEditors", "getSelection", "getDiagnostics", "checkDocumentDirty", "saveDocument", "reload" }) })
end
function statusLine() return job and ("running " .. summary) or "not running" end
function hostPid() return job and job.Process.Pid end
function diffList()
  local out = arr()
  for id, d in pairs(diffs) do out[#out + 1] = { id = id, path = d.path, text = text(d.buf) } end
  return out
end
encode, decode, array = enc, dec, arr

function init()
  config.MakeCommand("ide-accept", function(bp) local id = here(bp) if id then decide(id, true) else say("not in a proposal") end end, config.NoComplete)
  config.MakeCommand("ide-reject", function(bp) local id = here(bp) if id then decide(id, false) else say("not in a proposal") end end, config.NoComplete)
  config.MakeCommand("ide-status", function() say(statusLine()) end, config.NoComplete)
  config.MakeCommand("ide-agent", function(bp, args)
    local cmd = #args > 0 and args or { config.GetGlobalOption("ide_companion.agent") }
    bp:VSplitIndex(buffer.NewBuffer("", ""), true):TermCmd(cmd)
  end, config.NoComplete)
  config.AddRuntimeFile("ide_companion", config.RTHelp, "help/ide-companion.md")
  start()
end
