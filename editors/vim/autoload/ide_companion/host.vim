" The bridge host: a Node process (`ide-companion bridge`, bundled into one
" file) that runs the companion's loopback MCP server and speaks JSON lines
" with Vim on its stdin/stdout (docs/editor-protocol.md). This module starts
" and stops it, sends lines, and dispatches what it sends back. Nothing here
" waits for the host: writes are queued ('noblock') and replies arrive in
" callbacks.

let s:root = expand('<sfile>:p:h:h:h')
let s:MIN_NODE_MAJOR = 20
" `reload` is no capability (no tool): the diff half's action (diff.vim).
let s:CAPABILITIES = ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'diagnosticItems', 'checkDocumentDirty', 'saveDocument', 'reload']
let s:STDERR_KEPT = 50

" 'stopped', 'starting' (node probe or handshake under way) or 'running' (ready received).
let s:status = 'stopped'
let s:job = v:null
let s:channel = v:null
let s:ready = {}
let s:sessions = 0
" The agents of the connected sessions ('Claude Code', ...), as the host reports them.
let s:session_agents = []
let s:last_error = ''
let s:stderr = []
let s:partial = []
let s:on_ready = []
" Bumped by every start and stop: a node probe of an earlier start is ignored.
let s:generation = 0
let s:node_version = ''
" GEMINI_CLI_IDE_* as they were before the companion set its own (v:null: unset).
let s:saved_env = {}
" When a running host died unasked (localtime()); after 5 within 3 minutes it is not restarted.
let s:deaths = []
let s:MAX_DEATHS = 5
let s:DEATH_WINDOW_S = 180

function! ide_companion#host#root() abort
  return s:root
endfunction

" The host script: g:ide_companion_host, the copy an install made, a repository
" checkout's (built by `npm install`), or the one in the `ide-companion` package on PATH.
function! ide_companion#host#path() abort
  return ide_companion#host#found()[0]
endfunction

" [path, where it was found] ('' when there is none), for :GeminiHealth.
function! ide_companion#host#found() abort
  let configured = get(g:, 'ide_companion_host', '')
  if configured !=# ''
    let file = fnamemodify(expand(configured), ':p')
    return [filereadable(file) ? file : '', 'g:ide_companion_host']
  endif
  let candidates = [[s:root . '/host/ide-companion-bridge.mjs', "the plugin's own"], [s:root . '/../jsonlines/host/ide-companion-bridge.mjs', "the repository's"]]
  let exe = exepath('ide-companion')
  if exe !=# ''
    " npm links the command to <package>/packages/cli/bin/ide-companion.js.
    call add(candidates, [fnamemodify(resolve(exe), ':p:h:h:h:h') . '/editors/jsonlines/host/ide-companion-bridge.mjs', 'the ide-companion package on PATH'])
  endif
  for [candidate, origin] in candidates
    if filereadable(candidate)
      return [resolve(fnamemodify(candidate, ':p')), origin]
    endif
  endfor
  return ['', '']
endfunction

function! ide_companion#host#node() abort
  return get(g:, 'ide_companion_node', 'node')
endfunction

function! ide_companion#host#state() abort
  return {
        \ 'status': s:status,
        \ 'port': get(s:ready, 'port', 0),
        \ 'discoveryFile': get(s:ready, 'discoveryFile', ''),
        \ 'workspacePath': get(s:ready, 'workspacePath', ''),
        \ 'env': get(s:ready, 'env', {}),
        \ 'containerHint': get(s:ready, 'containerHint', ''),
        \ 'socketPath': get(s:ready, 'socketPath', ''),
        \ 'sessions': s:sessions,
        \ 'sessionAgents': copy(s:session_agents),
        \ 'agents': get(s:ready, 'agents', ['Gemini CLI']),
        \ 'lastError': s:last_error,
        \ 'stderr': copy(s:stderr),
        \ 'nodeVersion': s:node_version,
        \ 'hostPid': s:job is v:null ? 0 : job_info(s:job).process,
        \ }
endfunction

function! ide_companion#host#is_running() abort
  return s:status ==# 'running'
endfunction

" Runs Fn now if the companion is ready, or once it is; 0 if it is not starting at all.
function! ide_companion#host#when_ready(Fn) abort
  if s:status ==# 'running'
    call a:Fn()
    return 1
  elseif s:status ==# 'starting'
    call add(s:on_ready, a:Fn)
    return 1
  endif
  return 0
endfunction

function! s:fail(msg) abort
  let s:last_error = a:msg
  let s:status = 'stopped'
  let s:on_ready = []
  call ide_companion#util#error(a:msg)
endfunction

function! ide_companion#host#start() abort
  if s:status !=# 'stopped'
    return 1
  endif
  if &encoding !=# 'utf-8'
    call s:fail("'encoding' is " . &encoding . '; the companion needs utf-8 (put `set encoding=utf-8` at the top of your vimrc)')
    return 0
  endif
  let host = ide_companion#host#path()
  if host ==# ''
    let configured = get(g:, 'ide_companion_host', '')
    call s:fail(configured !=# ''
          \ ? 'g:ide_companion_host names ' . configured . ', which is not a readable file'
          \ : 'the bridge host is missing (host/ide-companion-bridge.mjs); reinstall with `ide-companion install vim` or set g:ide_companion_host')
    return 0
  endif
  let node = ide_companion#host#node()
  if !executable(node)
    call s:fail('Node.js is not installed (no `' . node . '` on PATH); install Node.js ' . s:MIN_NODE_MAJOR . ' or newer, or set g:ide_companion_node')
    return 0
  endif
  let s:status = 'starting'
  let s:generation += 1
  let generation = s:generation
  let s:last_error = ''
  " `node --version` first, in the background: an old Node would fail on the
  " host's syntax with an error no user should have to decode.
  let out = []
  let job = job_start([node, '--version'], {
        \ 'in_io': 'null', 'err_io': 'null', 'mode': 'nl',
        \ 'out_cb': {ch, line -> add(out, line)},
        \ 'close_cb': {ch -> s:probe_done(generation, node, host, join(out, ''))}})
  if job_status(job) ==# 'fail'
    call s:fail('could not run `' . node . ' --version`')
    return 0
  endif
  return 1
endfunction

function! s:probe_done(generation, node, host, out) abort
  if a:generation != s:generation || s:status !=# 'starting'
    return
  endif
  let s:node_version = trim(a:out)
  let major = str2nr(matchstr(s:node_version, '^v\zs\d\+'))
  if major < s:MIN_NODE_MAJOR
    call s:fail('`' . a:node . '` is ' . (s:node_version ==# '' ? 'not a working Node.js' : 'Node.js ' . s:node_version)
          \ . '; the companion needs Node.js ' . s:MIN_NODE_MAJOR . ' or newer (set g:ide_companion_node to another one)')
    return
  endif
  call s:spawn(a:node, a:host)
endfunction

function! s:spawn(node, host) abort
  " Terminals started before the companion is ready must not reach another
  " editor's companion (Vim itself may run in one's terminal).
  call s:clear_env()
  let s:partial = []
  let opts = {
        \ 'mode': 'raw',
        \ 'noblock': 1,
        \ 'out_cb': function('s:on_output'),
        \ 'exit_cb': function('s:on_exit'),
        \ 'stoponexit': 'term',
        \ }
  let log = get(g:, 'ide_companion_log_file', '')
  if log !=# ''
    let opts.err_io = 'file'
    let opts.err_name = fnamemodify(expand(log), ':p')
  else
    let opts.err_mode = 'nl'
    let opts.err_cb = function('s:on_stderr')
  endif
  let s:stderr = []
  let s:sessions = 0
let s:session_agents = []
  let s:job = job_start([a:node, a:host, '--name', 'vim', '--display-name', 'Vim'], opts)
  if job_status(s:job) !=# 'run'
    let s:job = v:null
    call s:fail('could not start ' . a:node . ' ' . a:host)
    return
  endif
  let s:channel = job_getchannel(s:job)
  let hello = {
        \ 'type': 'hello',
        \ 'protocol': 1,
        \ 'ide': {'name': 'vim', 'displayName': 'Vim'},
        \ 'pid': getpid(),
        \ 'roots': ide_companion#context#roots(),
        \ 'capabilities': s:CAPABILITIES,
        \ }
  " Which agents to serve: g:ide_companion_agents (['gemini', 'claude']; also 'copilot', 'opencode'); unset: all the user has.
  if type(get(g:, 'ide_companion_agents', v:null)) == v:t_list
    let hello.agents = g:ide_companion_agents
  endif
  " Vim has no workspace trust: unless the user states one, none is reported
  " and Gemini CLI applies its own folder trust.
  if has_key(g:, 'ide_companion_trusted')
    let hello.trusted = g:ide_companion_trusted ? v:true : v:false
  endif
  call ide_companion#host#send(hello)
  " Events after hello are applied once the companion exists.
  call ide_companion#context#attach()
endfunction

" Queues one message; never waits. 0 when there is no host to send to.
function! ide_companion#host#send(msg) abort
  if s:channel is v:null
    return 0
  endif
  try
    call ch_sendraw(s:channel, json_encode(a:msg) . "\n")
  catch
    return 0
  endtry
  return 1
endfunction

" Sends one message already encoded as JSON (one line, no newline in it).
" Compiled on Vim 9: it is what every cursor update calls.
if v:version >= 900
  def ide_companion#host#send_json(json: string): number
    if type(s:channel) != v:t_channel
      return 0
    endif
    try
      ch_sendraw(s:channel, json .. "\n")
    catch
      return 0
    endtry
    return 1
  enddef
else
  function! ide_companion#host#send_json(json) abort
    if s:channel is v:null
      return 0
    endif
    try
      call ch_sendraw(s:channel, a:json . "\n")
    catch
      return 0
    endtry
    return 1
  endfunction
endif

function! s:on_stderr(ch, line) abort
  call add(s:stderr, a:line)
  if len(s:stderr) > s:STDERR_KEPT
    call remove(s:stderr, 0)
  endif
endfunction

" Raw mode, split into lines here: Vim's 'nl' mode copies what it has
" received so far at every read until the line ends, quadratic in the length
" of a line (a 32 MiB diff took seconds). Pieces of a line wait in a list and
" are joined once.
function! s:on_output(ch, data) abort
  let parts = split(a:data, "\n", 1)
  if len(parts) == 1
    call add(s:partial, a:data)
    return
  endif
  let parts[0] = join(s:partial, '') . parts[0]
  let s:partial = parts[-1] ==# '' ? [] : [parts[-1]]
  for line in parts[:-2]
    if line !=# ''
      call s:on_line(a:ch, line)
    endif
  endfor
endfunction

function! s:on_line(ch, line) abort
  try
    let msg = json_decode(a:line)
  catch
    call s:on_stderr(a:ch, 'not JSON from the host: ' . strpart(a:line, 0, 200))
    return
  endtry
  if type(msg) != v:t_dict
    return
  endif
  let type = get(msg, 'type', '')
  if type ==# 'request'
    call s:answer(msg)
  elseif type ==# 'ready'
    call s:on_ready_msg(msg)
  elseif type ==# 'sessions'
    call s:on_sessions(get(msg, 'count', 0), get(msg, 'agents', []))
  elseif type ==# 'error'
    " Before ready: why the companion could not start. After: a line of ours
    " the host could not use, kept for :GeminiHealth.
    let message = get(msg, 'message', '')
    if s:status !=# 'running'
      let s:last_error = message
    endif
    call s:on_stderr(a:ch, 'host error: ' . message)
  endif
endfunction

" Every request gets a response, in the callback that received it.
function! s:answer(msg) abort
  let response = {'type': 'response', 'id': get(a:msg, 'id', 0)}
  try
    let response.result = ide_companion#actions#run(get(a:msg, 'action', ''), get(a:msg, 'params', {}))
  catch
    " The sentence without Vim's error prefix ("Vim(call):E...: " stays readable).
    let response.error = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  endtry
  call ide_companion#host#send(response)
endfunction

function! s:on_ready_msg(msg) abort
  let s:ready = a:msg
  let s:status = 'running'
  call ide_companion#diff#set_words(get(a:msg, 'words', {}))
  " Every :terminal, :!cmd and system() child from now on names this Vim.
  let env = get(a:msg, 'env', {})
  if type(env) == v:t_dict
    for [name, value] in items(env)
      call s:save_env(name)
      call setenv(name, value)
    endfor
  endif
  let callbacks = s:on_ready
  let s:on_ready = []
  for Fn in callbacks
    try
      call Fn()
    catch
      call ide_companion#util#error(v:exception)
    endtry
  endfor
endfunction

function! s:on_sessions(count, agents) abort
  let before = copy(s:session_agents)
  let s:sessions = a:count
  let s:session_agents = a:agents
  for agent in uniq(sort(copy(a:agents)))
    if index(before, agent) < 0
      call ide_companion#util#info(agent . ' connected')
    endif
  endfor
  for agent in uniq(sort(before))
    if index(a:agents, agent) < 0
      call ide_companion#util#info(agent . ' disconnected')
    endif
  endfor
endfunction

function! s:save_env(name) abort
  if !has_key(s:saved_env, a:name)
    let s:saved_env[a:name] = getenv(a:name)
  endif
endfunction

function! s:clear_env() abort
  for name in keys(environ())
    if name =~# '^GEMINI_CLI_IDE_'
      call s:save_env(name)
      call setenv(name, v:null)
    endif
  endfor
endfunction

function! s:restore_env() abort
  for [name, value] in items(s:saved_env)
    call setenv(name, value)
  endfor
  let s:saved_env = {}
endfunction

function! s:on_exit(job, code) abort
  " A job :GeminiStop let go of is already accounted for.
  if a:job isnot s:job
    return
  endif
  let was = s:status
  if was ==# 'running'
    call s:died(a:code)
    return
  endif
  call s:reset()
  let why = s:last_error !=# '' ? s:last_error : (empty(s:stderr) ? '' : s:stderr[-1])
  let what = was ==# 'running' ? 'stopped' : 'could not start'
  " The host's own sentence may say it already ("the companion could not start: ...").
  let s:last_error = why =~# '^\(host error: \)\=the companion'
        \ ? printf('%s (exit code %d)', substitute(why, '^host error: ', '', ''), a:code)
        \ : printf('the companion %s (exit code %d)%s', what, a:code, why ==# '' ? '' : ': ' . why)
  call ide_companion#util#error(s:last_error . '; :GeminiHealth tells more')
endfunction

" A running host died unasked (killed, out of memory, crashed): its discovery
" file and socket folder go now (it could not remove them, and the discovery
" file names this Vim, which lives on), the proposals stay for the user, and a
" new host starts at once; after too many deaths it is left stopped. One line
" says what happened, never the host's raw log.
function! s:died(code) abort
  let ready = s:ready
  let kept = ide_companion#diff#keep_all()
  call s:reset()
  call s:remove_files_of(ready)
  let now = localtime()
  call filter(s:deaths, {_, t -> now - t < s:DEATH_WINDOW_S})
  call add(s:deaths, now)
  let proposals = ide_companion#diff#kept_words(kept)
  if len(s:deaths) >= s:MAX_DEATHS
    let s:last_error = printf('the companion host stopped %d times in %d minutes (exit code %d); it is not restarted', len(s:deaths), s:DEATH_WINDOW_S / 60, a:code)
    call ide_companion#util#error(s:last_error . proposals . '. :GeminiStart tries again, :GeminiHealth tells why')
    return
  endif
  let s:last_error = printf('the companion host stopped (exit code %d) and was restarted', a:code)
  call ide_companion#util#warn(s:last_error . proposals)
  " Back off as it keeps dying: 0, 0.5, 1, 2 s.
  let delay = len(s:deaths) == 1 ? 0 : 250 * float2nr(pow(2, len(s:deaths) - 1))
  call timer_start(delay, {-> ide_companion#host#start()})
endfunction

" The dead host's discovery file, and its socket folder (TMP/ide-companion-UID/PID-PORT: only that shape).
function! s:remove_files_of(ready) abort
  let file = get(a:ready, 'discoveryFile', '')
  if type(file) == v:t_string && fnamemodify(file, ':t') =~# '^gemini-ide-server-\d\+-\d\+\.json$'
    call delete(file)
  endif
  let socket = get(a:ready, 'socketPath', '')
  if type(socket) == v:t_string && socket !=# ''
    let dir = fnamemodify(socket, ':h')
    if fnamemodify(dir, ':t') =~# '^\d\+-\d\+$' && fnamemodify(dir, ':h:t') =~# '^ide-companion-\d\+$'
      call delete(dir, 'rf')
    endif
  endif
endfunction

" Back to 'stopped': env restored, events and diffs detached.
function! s:reset() abort
  let s:job = v:null
  let s:channel = v:null
  let s:status = 'stopped'
  let s:ready = {}
  let s:sessions = 0
let s:session_agents = []
  let s:on_ready = []
  let s:partial = []
  call s:restore_env()
  call ide_companion#context#detach()
  call ide_companion#diff#close_all()
endfunction

" Closing stdin makes the host remove its discovery file and exit; a new
" companion may start at once.
function! ide_companion#host#stop() abort
  if s:status ==# 'stopped'
    return 0
  endif
  let s:generation += 1
  let job = s:job
  if job isnot v:null
    silent! call ch_close_in(s:channel)
    call timer_start(3000, {-> job_status(job) ==# 'run' ? job_stop(job, 'kill') : 0})
  endif
  call s:reset()
  return 1
endfunction

" VimLeavePre: Vim sends SIGTERM to its jobs as it exits; closing stdin first
" and waiting a moment lets the host remove its discovery file either way.
function! ide_companion#host#leaving() abort
  if s:job is v:null
    return
  endif
  let job = s:job
  let channel = s:channel
  " Vim is going: its exit is no failure to report.
  let s:job = v:null
  silent! call ch_close_in(channel)
  let waited = 0
  while job_status(job) ==# 'run' && waited < 500
    sleep 10m
    let waited += 10
  endwhile
endfunction
