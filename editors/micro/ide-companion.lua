-- ide-companion for micro: a thin end of the JSON-lines host (docs/editor-protocol.md).
-- micro reports positions and answers actions; every rule is the host's.
VERSION = "0.1.0"
local micro, config, shell, buffer = import("micro"), import("micro/config"), import("micro/shell"), import("micro/buffer")
local util, goos, filepath = import("micro/util"), import("os"), import("path/filepath")

-- `set ide_companion.NAME VALUE`: node and host to run, the agent of `> ide-agent`, Amp's edits, the host's log.
for k, v in pairs({ node = "node", host = "", agent = "gemini", ampeditfile = "review", log = "" }) do config.RegisterGlobalOption("ide_companion", k, v) end
local function option(name) return config.GetGlobalOption("ide_companion." .. name) end
local job, ready, words, summary, inbuf = nil, false, {}, "", {}
local diffs = {} -- diffId -> { path, buf (the proposal), name, orig (buffer names), shown (its text as shown), back (the pane to return to) }
local last, timer, NULL, ARR = nil, false, {}, {}

-- JSON: micro's Lua has no codec; these are the few lines the host's lines need.
local ESC = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function enc(v)
  local t, out = type(v), {}
  if t == "string" and not v:find('[%c"\\]') then return '"' .. v .. '"' end -- most strings: a path
  if t == "string" then return '"' .. (v:gsub('[%c"\\]', function(c) return ESC[c] or string.format("\\u%04x", c:byte()) end)) .. '"' end
  if t == "number" then return string.format("%d", v) end
  if t == "boolean" then return tostring(v) end
  if v == nil or v == NULL then return "null" end
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
      local k = #t + 1
      if close == "}" then k, i = dec(s, i); i = s:find(":", i, true) + 1 end
      t[k], i = dec(s, i)
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
      -- JSON.stringify (the host) sends all but control characters as they are, never a surrogate pair.
      if e == "u" then parts[#parts + 1], j = util.RuneStr(tonumber(s:sub(k + 2, k + 5), 16)), k + 6
      else parts[#parts + 1], j = UNESC[e] or e, k + 2 end
    end
  end
  local word = s:match("^[%w%.%+%-]+", i)
  if word == "true" or word == "false" then return word == "true", i + #word end
  return tonumber(word), i + #word -- null is nil
end
local function send(m) if job then shell.JobSend(job, enc(m) .. "\n") end end
local function say(msg) micro.InfoBar():Message("ide-companion: " .. msg) end

-- Panes, tabs and the buffers of files (not the diff's own buffers, not terminals).
local function panes()
  local list, tabs = {}, micro.Tabs()
  for ti = 1, #tabs.List do
    local tab = tabs.List[ti]
    for pi = 1, #tab.Panes do list[#list + 1] = { pane = tab.Panes[pi], tab = tab, ti = ti, pi = pi } end
  end
  return list
end
local function diffOf(name)
  for id, d in pairs(diffs) do if d.name == name or d.orig == name then return id, d end end
end
local function fileOf(buf) if buf ~= nil and buf.Path ~= "" and buf.Type.Kind == buffer.BTDefault and not diffOf(buf.AbsPath) then return buf.AbsPath end end
local function paneOf(path)
  for _, e in ipairs(panes()) do if fileOf(e.pane.Buf) == path then return e, e.pane.Buf end end
end
local function pos(loc) return { line = loc.Y + 1, character = loc.X + 1 } end
local function text(buf) return util.String(buf:Bytes()) end

-- Positions: sent at most once per 30 ms, when the clock job answers (micro 2.0 has no timer that calls back
-- on its main loop): a key costs a flag test, or one byte to the clock. The line is formatted, not encoded (cheaper).
local lastPath, pathJson, clock
local function sendPosition()
  local bp = micro.CurPane()
  local path = bp and fileOf(bp.Buf)
  if not path or not job then return false end
  local c = bp.Buf:GetActiveCursor()
  local l, a, s1, s2 = c.Loc, "", c.CurSelection[1], c.CurSelection[2]
  local o = (s1.X == l.X and s1.Y == l.Y) and s2 or s1 -- the anchor: the selection's end the cursor is not on
  if c:HasSelection() then a = string.format(',"anchor":{"line":%d,"character":%d}', o.Y + 1, o.X + 1) end
  if path ~= lastPath then pathJson = enc(path) end
  local line = string.format('"path":%s,"cursor":{"line":%d,"character":%d}%s}\n', pathJson, l.Y + 1, l.X + 1, a)
  if line == last then return false end
  shell.JobSend(job, (path == lastPath and '{"type":"cursor",' or '{"type":"focus",') .. line)
  last, lastPath = line, path
  return true
end
local function tick()
  timer = sendPosition()
  if timer then shell.JobSend(clock, "\n") end
end
function moved()
  if ready and not timer then timer = true shell.JobSend(clock, "\n") end
  return true
end
for name in ([[CursorUp CursorDown CursorLeft CursorRight CursorPageUp CursorPageDown CursorStart CursorEnd SelectUp SelectDown
  SelectLeft SelectRight SelectWordRight SelectWordLeft SelectToStart SelectToEnd SelectLine SelectToStartOfLine
  SelectToStartOfText SelectToEndOfLine SelectAll SelectPageUp SelectPageDown WordRight WordLeft StartOfLine StartOfText
  StartOfTextToggle EndOfLine ParagraphPrevious ParagraphNext InsertNewline Backspace Delete InsertTab Undo Redo Cut
  CutLine Paste PastePrimary DeleteWordRight DeleteWordLeft MoveLinesUp MoveLinesDown PageUp PageDown HalfPageUp
  HalfPageDown Start End MousePress MouseMultiCursor Escape Deselect FindNext FindPrevious JumpToMatchingBrace NextSplit
  PreviousSplit NextTab PreviousTab Unsplit VSplit HSplit AddTab JumpLine Center]]):gmatch("%S+") do _M["on" .. name] = moved end
function onRune() return moved() end
function onBufPaneOpen() moved() end
function onBufferOpen(buf) if fileOf(buf) then send({ type = "open", path = fileOf(buf) }) end moved() end
function onSave(bp) if fileOf(bp.Buf) then send({ type = "saved", path = fileOf(bp.Buf) }) end return true end

-- The diff: a tab with the original (read-only) beside the proposal, which the user edits.
local function closeView(id)
  local d, tabs, wasActive = diffs[id], micro.Tabs(), false
  diffs[id] = nil
  if not d then return end
  for _, e in ipairs(panes()) do
    local b = e.pane.Buf
    if b ~= nil and (b.AbsPath == d.name or b.AbsPath == d.orig) and e.tab.Panes[1] ~= nil then
      wasActive = wasActive or e.ti == tabs:Active() + 1
      if #tabs.List == 1 then micro.InfoBar():AddTab() end -- the last tab is never removed
      for qi = 1, #e.tab.Panes do if e.tab.Panes[qi].Buf ~= nil then e.tab.Panes[qi].Buf:Close() end end
      tabs:RemoveTab(e.tab.Panes[1]:ID())
      break
    end
  end
  -- Back where the user was when the diff opened (a file's pane, or the agent's terminal).
  if not wasActive then return end
  for _, e in ipairs(panes()) do
    if e.pane:ID() == d.back then tabs:SetActive(e.ti - 1); e.tab:SetActive(e.pi - 1) end
  end
end
local function decide(id, accepted)
  local d = diffs[id]
  if not job then return say((words.acceptUnsent or "the companion is not running"):gsub("{file}", function() return d.path end)) end
  local now = text(d.buf)
  if not accepted then send({ type = "diffRejected", diffId = id }) else
    -- The agent writes the file next: micro's "changed on disk, reload?" waits for the host's reload.
    for _, e in ipairs(panes()) do if fileOf(e.pane.Buf) == d.path then e.pane.Buf.ReloadDisabled = true end end
    send({ type = "diffAccepted", diffId = id, content = now ~= d.shown and now or nil })
  end
  closeView(id)
end
local function here(bp) return (diffOf(bp.Buf.AbsPath)) end
-- Ctrl-S in a diff accepts it, Ctrl-Q rejects it (neither saves nor asks).
function preSave(bp) return not (here(bp) and decide(here(bp), true) == nil) end
function preQuit(bp) return not (here(bp) and decide(here(bp), false) == nil) end
function onQuit(bp)
  if fileOf(bp.Buf) and not paneOf(fileOf(bp.Buf)) then send({ type = "close", path = fileOf(bp.Buf) }) end
  return true
end
local actions = {}
function actions.showDiff(p)
  local tag = filepath.Base(p.filePath) .. " [" .. p.diffId:sub(1, 8) .. "]"
  local orig, prop = buffer.NewBuffer(p.originalContent or "", "original of " .. tag), buffer.NewBuffer(p.newContent, "proposal for " .. tag)
  orig:SetOptionNative("readonly", true)
  prop:SetDiffBase(p.originalContent or "")
  prop:SetOptionNative("diffgutter", true)
  local tabs, backId = micro.Tabs(), nil
  for _, e in ipairs(panes()) do if e.ti == tabs:Active() + 1 and e.pane:IsActive() then backId = e.pane:ID() end end
  micro.InfoBar():AddTab()
  micro.CurPane():OpenBuffer(orig)
  micro.CurPane():VSplitIndex(prop, true)
  diffs[p.diffId] = { path = p.filePath, buf = prop, name = prop.AbsPath, orig = orig.AbsPath, shown = text(prop), back = backId, kept = p.kept }
  if p.kept then tabs:SetActive(tabs:Active() - 1) end -- shown without taking the user's pane
end
function actions.diffText(p)
  local d = diffs[p.diffId]
  return { text = (d and text(d.buf) ~= d.shown) and text(d.buf) or NULL }
end
function actions.closeDiff(p) -- a kept proposal stays shown: its buffer is where the message says it is kept
  if diffs[p.diffId] and diffs[p.diffId].kept then diffs[p.diffId] = nil else closeView(p.diffId) end
  if p.message then say(p.message) end
end
function actions.getSelection()
  local bp = micro.CurPane()
  local c = bp and fileOf(bp.Buf) and bp.Buf:GetActiveCursor()
  if not (c and c:HasSelection()) then return { selection = NULL } end
  local a, b = c.CurSelection[1], c.CurSelection[2]
  if b.Y < a.Y or (b.Y == a.Y and b.X < a.X) then a, b = b, a end
  return { selection = { path = fileOf(bp.Buf), text = util.String(c:GetSelection()), start = pos(a), ["end"] = pos(b) } }
end
function actions.selectedText() return { text = actions.getSelection().selection.text or NULL } end
function actions.getOpenEditors()
  local out, seen, cur = arr(), {}, micro.CurPane()
  local active = cur and fileOf(cur.Buf)
  for _, e in ipairs(panes()) do
    local path, b = fileOf(e.pane.Buf), e.pane.Buf
    if path and not seen[path] then out[#out + 1], seen[path] = { path = path, isActive = path == active, isDirty = b:Modified(), lineCount = b:LinesNum() }, true end
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
    if not micro.CurPane() or micro.CurPane().Buf.Path ~= "" or micro.CurPane().Buf:Modified() then micro.InfoBar():AddTab() end
    micro.CurPane():OpenBuffer(buf)
  end
  local bp = micro.CurPane()
  local b, c = bp.Buf, bp.Buf:GetActiveCursor()
  local function loc(line, col) -- past the end: the last line with text, the line's end
    local last = (b:LinesNum() > 1 and b:Line(b:LinesNum() - 1) == "") and b:LinesNum() - 1 or b:LinesNum()
    local y = math.max(0, math.min(line, last) - 1)
    return buffer.Loc(math.min(math.max((col or 1) - 1, 0), util.CharacterCountInString(b:Line(y))), y)
  end
  if p.line then
    local from, to = loc(p.line, p.column), p.endLine and p.endLine >= p.line and loc(p.endLine, p.endColumn or 1e9)
    c:ResetSelection()
    c:GotoLoc(to or from)
    if to then c:SetSelectionStart(from); c:SetSelectionEnd(to) end
  end
  bp:Relocate()
  sendPosition()
end
function actions.closeFile(p)
  for _, e in ipairs(panes()) do
    if fileOf(e.pane.Buf) == p.path and not e.pane.Buf:Modified() then e.pane:OpenBuffer(buffer.NewBuffer("", "")) end
  end
end
function actions.checkDocumentDirty(p)
  local _, b = paneOf(p.path)
  if not b then return { isOpen = false, isDirty = false } end
  return { isOpen = true, isDirty = b:Modified(), readOnly = b.Settings["readonly"], changedOnDisk = b:ExternallyModified() }
end
function actions.saveDocument(p)
  local _, b = paneOf(p.path)
  if not b then return { saved = false, message = p.path .. " is not open in micro" } end
  if not b:Modified() then return { saved = true, message = "no unsaved changes" } end
  local err = b:Save()
  return { saved = err == nil and not b:Modified(), message = err ~= nil and err:Error() or nil }
end
-- After an accept or a buffer write the host asks for this: micro's ReOpen rereads the file as one undoable change.
function actions.reload(p)
  for _, e in ipairs(panes()) do
    local b = e.pane.Buf
    if fileOf(b) == p.path and b:Modified() then say(p.unsavedWarning) elseif fileOf(b) == p.path then b:ReOpen() end
    if fileOf(b) == p.path then b.ReloadDisabled = false end
  end
end
-- Diagnostics: the messages linters put on micro's buffers (its linter plugin's).
local SEVERITY = { [buffer.MTInfo] = "information", [buffer.MTWarning] = "warning", [buffer.MTError] = "error" }
function actions.getDiagnostics(p)
  local out, seen = arr(), {}
  for _, e in ipairs(panes()) do
    local path, b = fileOf(e.pane.Buf), e.pane.Buf
    if path and not seen[path] and (not p.path or p.path == path) then
      seen[path] = true
      local ok, n = pcall(function() return #b.Messages end) -- a nil slice (no messages yet) has no length
      for i = 1, ok and n or 0 do -- a message on a whole line has X = -1 at both ends
        local m = b.Messages[i]
        local to = m.End.X < 0 and buffer.Loc(util.CharacterCountInString(b:Line(m.End.Y)), m.End.Y) or m.End
        out[#out + 1] = { path = path, message = m.Msg, severity = SEVERITY[m.Kind] or "information", source = m.Owner, range = { start = pos(buffer.Loc(math.max(m.Start.X, 0), m.Start.Y)), ["end"] = pos(to) } }
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
  elseif m.type == "say" and m.level ~= "error" then say(tostring(m.message))
  elseif m.type == "error" or m.type == "say" then micro.InfoBar():Error("ide-companion: " .. tostring(m.message)) end
end
local function onOut(chunk)
  local start = 1
  while true do
    local nl = chunk:find("\n", start, true)
    inbuf[#inbuf + 1] = chunk:sub(start, (nl or 0) - 1)
    if not nl then return end
    local line = table.concat(inbuf)
    inbuf, start = {}, nl + 1
    -- An error in a job's callback would end micro: it is shown instead.
    local ok, err = pcall(receive, line)
    if not ok then micro.InfoBar():Error("ide-companion: " .. tostring(err)) end
  end
end

local start
-- A host that served and died starts again, told how it ended (it counts, backs off, says so: server/hostRestarts.ts); not one that gave up (75).
local function exited()
  local ok, code = pcall(function() return job.ProcessState:ExitCode() end)
  local served = ready
  job, ready, last, lastPath, inbuf = nil, false, nil, nil, {}
  if code == 75 then return end
  if served then start(ok and tostring(code) or "") else micro.InfoBar():Error("ide-companion: the host stopped; see ide_companion.log") end
end
function start(died) -- the host: ide_companion.host, else the one the installer put beside this file
  local host = option("host") ~= "" and option("host") or config.ConfigDir .. "/plug/ide-companion/host/ide-companion-bridge.mjs"
  if select(2, goos.Stat(host)) ~= nil then return micro.InfoBar():Error("ide-companion: the host is missing; run `ide-companion install micro`") end
  -- Arguments, never a command line. The host's log goes to ide_companion.log (or nowhere: micro keeps a job's output).
  local log = option("log") ~= "" and option("log") or "/dev/null"
  job = shell.JobSpawn("sh", { "-c", 'l=$1 d=$2; shift 2; [ "$d" ] && export IDE_COMPANION_HOST_DIED="${d#.}"; exec "$@" 2>>"$l"',
    "sh", log, died and "." .. died or "", option("node"), host }, onOut, nil, exited)
  send({ type = "hello", protocol = 1, ide = { name = "micro", displayName = "micro" }, pid = goos.Getpid(), roots = arr({ (goos.Getwd()) }),
    ampEditFile = option("ampeditfile") == "buffer" and "buffer" or nil,
    capabilities = arr({ "openFile", "getOpenEditors", "getSelection", "getDiagnostics", "checkDocumentDirty", "saveDocument", "reload" }) })
end
function statusLine() return job and ("running " .. summary) or "not running" end -- `> ide-status`; and tests read these
function hostPid() return job and job.Process.Pid end
function diffList()
  local out = arr()
  for id, d in pairs(diffs) do out[#out + 1] = { id = id, path = d.path, text = text(d.buf) } end
  return out
end
encode, decode = enc, dec

function init()
  for name, accepted in pairs({ ["ide-accept"] = true, ["ide-reject"] = false }) do
    config.MakeCommand(name, function(bp) if here(bp) then decide(here(bp), accepted) else say("not in a proposal") end end, config.NoComplete)
  end
  config.MakeCommand("ide-status", function() say(statusLine()) end, config.NoComplete)
  config.MakeCommand("ide-agent", function(bp, args)
    bp:VSplitIndex(buffer.NewBuffer("", ""), true):TermCmd(#args > 0 and args or { option("agent") })
  end, config.NoComplete)
  config.AddRuntimeFile("ide_companion", config.RTHelp, "help/ide-companion.md")
  clock = shell.JobSpawn("sh", { "-c", "while read -r _; do sleep 0.03; echo; done" }, tick, nil, function() end)
  start()
end
