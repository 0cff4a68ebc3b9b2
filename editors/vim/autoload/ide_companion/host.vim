" The bridge host: a Node process (`ide-companion bridge`, one bundled file)
" that runs the companion and speaks JSON lines on its stdin/stdout
" (docs/editor-protocol.md). This module starts and stops it, sends lines and
" dispatches what it sends back; only :GeminiHealth waits for it (2 s at most).

let s:root = expand('<sfile>:p:h:h:h')
let s:MIN_NODE_MAJOR = 20
" `reload` and `diagnosticItems` are no tools: actions Vim answers (diff.vim, diagnostics.vim).
let s:CAPABILITIES = ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'diagnosticItems', 'checkDocumentDirty', 'saveDocument', 'reload']

" 'stopped', 'starting' (node probe or handshake under way) or 'running' (ready received).
let s:status = 'stopped'
let s:job = v:null
let s:channel = v:null
let s:ready = {}
let s:sessions = 0
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
" For the host started after a death: how the last one ended and what was kept (the new host says it).
let s:restart_env = {}
" The exit code of a host that gave up (protocol hostRestarts.ts): it is not started again.
let s:GAVE_UP = 75

" [the host script, where it was found] ('' when there is none): g:ide_companion_host,
" the plugin's own, a repository checkout's, or the `ide-companion` package's on PATH.
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
  let state = {'status': s:status, 'sessions': s:sessions, 'sessionAgents': copy(s:session_agents), 'lastError': s:last_error,
        \ 'stderr': copy(s:stderr), 'nodeVersion': s:node_version, 'hostPid': s:job is v:null ? 0 : job_info(s:job).process}
  for [key, default] in items({'port': 0, 'discoveryFile': '', 'workspacePath': '', 'env': {}, 'containerHint': '', 'socketPath': '', 'agents': ['Gemini CLI'], 'health': [], 'acp': {}})
    let state[key] = get(s:ready, key, default)
  endfor
  return state
endfunction

function! ide_companion#host#is_running() abort
  return s:status ==# 'running'
endfunction

" Runs Fn now if the companion is ready, or once it is; 0 if it is not starting at all.
function! ide_companion#host#when_ready(Fn) abort
  if s:status ==# 'running'
    call a:Fn()
  elseif s:status ==# 'starting'
    call add(s:on_ready, a:Fn)
  endif
  return s:status !=# 'stopped'
endfunction

function! s:fail(msg) abort
  let [s:last_error, s:status, s:on_ready, s:restart_env] = [a:msg, 'stopped', [], {}]
  call ide_companion#util#error(a:msg)
  return 0
endfunction

" What must work when the host cannot start: utf-8, the host found, Node found and new enough.
function! ide_companion#host#start() abort
  if s:status !=# 'stopped'
    return 1
  endif
  if &encoding !=# 'utf-8'
    return s:fail("'encoding' is " . &encoding . '; the companion needs utf-8 (put `set encoding=utf-8` at the top of your vimrc)')
  endif
  let [host, node] = [ide_companion#host#found()[0], ide_companion#host#node()]
  if host ==# ''
    return s:fail(get(g:, 'ide_companion_host', '') !=# ''
          \ ? 'g:ide_companion_host names ' . g:ide_companion_host . ', which is not a readable file'
          \ : 'the bridge host is missing (host/ide-companion-bridge.mjs); reinstall with `ide-companion install vim` or set g:ide_companion_host')
  endif
  if !executable(node)
    return s:fail('Node.js is not installed (no `' . node . '` on PATH); install Node.js ' . s:MIN_NODE_MAJOR . ' or newer, or set g:ide_companion_node')
  endif
  let [s:status, s:last_error] = ['starting', '']
  let s:generation += 1
  let generation = s:generation
  " `node --version` first, in the background: an old Node fails on the host's
  " syntax with an error no user should have to decode.
  let out = []
  let job = job_start([node, '--version'], {'in_io': 'null', 'err_io': 'null', 'mode': 'nl', 'out_cb': {ch, line -> add(out, line)},
        \ 'close_cb': {ch -> s:probe_done(generation, node, host, trim(join(out, '')))}})
  return job_status(job) ==# 'fail' ? s:fail('could not run `' . node . ' --version`') : 1
endfunction

function! s:probe_done(generation, node, host, version) abort
  if a:generation != s:generation || s:status !=# 'starting'
    return
  endif
  let s:node_version = a:version
  if str2nr(matchstr(a:version, '^v\zs\d\+')) < s:MIN_NODE_MAJOR
    return s:fail('`' . a:node . '` is ' . (a:version ==# '' ? 'not a working Node.js' : 'Node.js ' . a:version)
          \ . '; the companion needs Node.js ' . s:MIN_NODE_MAJOR . ' or newer (set g:ide_companion_node to another one)')
  endif
  " Terminals started before the companion is ready must not reach another
  " editor's companion (Vim itself may run in one's terminal).
  for name in filter(keys(environ()), {_, n -> n =~# '^GEMINI_CLI_IDE_'})
    call s:set_env(name, v:null)
  endfor
  let [s:partial, s:stderr, s:sessions, s:session_agents] = [[], [], 0, []]
  " Raw mode, split here: 'nl' mode copies what it has so far at every read,
  " quadratic in a line's length (a 32 MiB diff took seconds).
  let opts = {'mode': 'raw', 'noblock': 1, 'out_cb': function('s:on_output'), 'exit_cb': function('s:on_exit'), 'stoponexit': 'term'}
  let [opts.env, s:restart_env] = [s:restart_env, {}]
  let log = get(g:, 'ide_companion_log_file', '')
  call extend(opts, log !=# '' ? {'err_io': 'file', 'err_name': fnamemodify(expand(log), ':p')} : {'err_mode': 'nl', 'err_cb': {ch, line -> s:log(line)}})
  let s:job = job_start([a:node, a:host, '--name', 'vim', '--display-name', 'Vim'], opts)
  if job_status(s:job) !=# 'run'
    let s:job = v:null
    return s:fail('could not start ' . a:node . ' ' . a:host)
  endif
  let s:channel = job_getchannel(s:job)
  let hello = {'type': 'hello', 'protocol': 1, 'ide': {'name': 'vim', 'displayName': 'Vim'}, 'pid': getpid(),
        \ 'roots': ide_companion#context#roots(), 'capabilities': s:CAPABILITIES}
  " g:ide_companion_agents (['gemini', 'claude', ...]); unset: all the user has.
  if type(get(g:, 'ide_companion_agents', v:null)) == v:t_list
    let hello.agents = g:ide_companion_agents
  endif
  " g:ide_companion_amp_edit_file ('review' or 'buffer'): how Amp's editFile reaches the file; the host checks it.
  if type(get(g:, 'ide_companion_amp_edit_file', v:null)) == v:t_string
    let hello.ampEditFile = g:ide_companion_amp_edit_file
  endif
  " Vim has no workspace trust: unless the user states one, Gemini CLI applies its own.
  if has_key(g:, 'ide_companion_trusted')
    let hello.trusted = g:ide_companion_trusted ? v:true : v:false
  endif
  call ide_companion#host#send(hello)
  " Events after hello are applied once the companion exists.
  call ide_companion#context#attach()
endfunction

" Queues one message; never waits. 0 when there is no host to send to (a
" write that fails is caught here; the :def below did not catch it).
function! ide_companion#host#send(msg) abort
  try
    call ch_sendraw(s:channel, json_encode(a:msg) . "\n")
  catch
    return 0
  endtry
  return 1
endfunction

" Queues one line of JSON; never waits. 0 when there is no host to send to.
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
    try
      call ch_sendraw(s:channel, a:json . "\n")
    catch
      return 0
    endtry
    return 1
  endfunction
endif

" The host's last 50 lines of log, for :GeminiHealth.
function! s:log(line) abort
  let s:stderr = add(s:stderr, a:line)[-50:]
endfunction

" Pieces of a line wait in a list and are joined once.
function! s:on_output(ch, data) abort
  let parts = split(a:data, "\n", 1)
  if len(parts) == 1
    call add(s:partial, a:data)
    return
  endif
  let parts[0] = join(s:partial, '') . parts[0]
  let s:partial = parts[-1] ==# '' ? [] : [parts[-1]]
  for line in filter(parts[:-2], {_, l -> l !=# ''})
    try
      let msg = json_decode(line)
    catch
      call s:log('not JSON from the host: ' . strpart(line, 0, 200))
      continue
    endtry
    call call(get(s:ON_LINE, type(msg) == v:t_dict ? get(msg, 'type', '') : '', {m -> 0}), [msg])
  endfor
endfunction

" Every request gets a response, in the callback that received it.
function! s:answer(msg) abort
  let response = {'type': 'response', 'id': get(a:msg, 'id', 0)}
  try
    let response.result = ide_companion#actions#run(get(a:msg, 'action', ''), get(a:msg, 'params', {}))
  catch
    " The sentence without Vim's error prefix ("Vim(call):E...: ").
    let response.error = substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')
  endtry
  call ide_companion#host#send(response)
endfunction

function! s:on_ready_msg(msg) abort
  let [s:ready, s:status] = [a:msg, 'running']
  call ide_companion#diff#set_words(get(a:msg, 'words', {}))
  " Every :terminal, :!cmd and system() child from now on names this Vim.
  for [name, value] in items(get(a:msg, 'env', {}))
    call s:set_env(name, value)
  endfor
  let [callbacks, s:on_ready] = [s:on_ready, []]
  for Fn in callbacks
    try
      call Fn()
    catch
      call ide_companion#util#error(v:exception)
    endtry
  endfor
endfunction

function! s:on_sessions(msg) abort
  let [s:sessions, s:session_agents, s:ready.health] = [get(a:msg, 'count', 0), get(a:msg, 'agents', []), get(a:msg, 'health', [])]
  for words in get(a:msg, 'said', [])
    call ide_companion#util#info(words)
  endfor
endfunction

" Before ready: why the companion could not start. After: a line of ours the host could not use.
function! s:on_error(msg) abort
  if s:status !=# 'running'
    let s:last_error = get(a:msg, 'message', '')
  endif
  call s:log('host error: ' . get(a:msg, 'message', ''))
endfunction

" The running host's health lines, made now (the last ones if it is slow to answer).
function! ide_companion#host#health() abort
  let [last, waited] = [get(s:ready, 'health', []), ide_companion#host#send({'type': 'health'}) ? 0 : 2000]
  while s:status ==# 'running' && get(s:ready, 'health', []) is last && waited < 2000
    sleep 10m
    let waited += 10
  endwhile
  return get(s:ready, 'health', [])
endfunction

" The host's line on its start after a death: restarted ('warning'), or it gives up ('error', then exits).
function! s:on_say(msg) abort
  let s:last_error = get(a:msg, 'message', '')
  call call(get(a:msg, 'level', '') ==# 'error' ? 'ide_companion#util#error' : 'ide_companion#util#warn', [s:last_error])
endfunction

let s:ON_LINE = {'request': function('s:answer'), 'ready': function('s:on_ready_msg'), 'sessions': function('s:on_sessions'), 'error': function('s:on_error'), 'say': function('s:on_say'),
      \ 'health': {m -> extend(s:ready, {'health': get(m, 'health', [])})}}

function! s:set_env(name, value) abort
  if !has_key(s:saved_env, a:name)
    let s:saved_env[a:name] = getenv(a:name)
  endif
  call setenv(a:name, a:value)
endfunction

function! s:on_exit(job, code) abort
  " A job :GeminiStop let go of is already accounted for.
  if a:job isnot s:job
    return
  endif
  if s:status ==# 'running'
    return s:died(a:code)
  endif
  call s:reset()
  " It said why (s:on_say).
  if a:code == s:GAVE_UP
    return
  endif
  let why = s:last_error !=# '' ? s:last_error : get(s:stderr, -1, '')
  " The host's own sentence may say it already ("the companion could not start: ...").
  let s:last_error = why =~# '^\(host error: \)\=the companion'
        \ ? printf('%s (exit code %d)', substitute(why, '^host error: ', '', ''), a:code)
        \ : printf('the companion could not start (exit code %d)%s', a:code, why ==# '' ? '' : ': ' . why)
  call ide_companion#util#error(s:last_error . '; :GeminiHealth tells more')
endfunction

" A running host died unasked (killed, out of memory, crashed): its reaper
" removes its files, the proposals stay for the user, and a new host starts,
" told how this one ended: it counts, backs off and says so (server/hostRestarts.ts).
function! s:died(code) abort
  let kept = ide_companion#diff#keep_all()
  call s:reset()
  let s:restart_env = {'IDE_COMPANION_HOST_DIED': string(a:code), 'IDE_COMPANION_HOST_KEPT': json_encode(kept)}
  call timer_start(0, {-> ide_companion#host#start()})
endfunction

" Back to 'stopped': env restored, events and diffs detached.
function! s:reset() abort
  let [s:job, s:channel, s:status, s:ready, s:sessions, s:session_agents, s:on_ready, s:partial, s:restart_env] = [v:null, v:null, 'stopped', {}, 0, [], [], [], {}]
  for [name, value] in items(s:saved_env)
    call setenv(name, value)
  endfor
  let s:saved_env = {}
  call ide_companion#context#detach()
  call ide_companion#diff#close_all()
endfunction

" Closing stdin makes the host remove its files and exit; a new companion may start at once.
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

" VimLeavePre: Vim SIGTERMs its jobs as it exits; closing stdin first and
" waiting a moment lets the host remove its files either way.
function! ide_companion#host#leaving() abort
  let [job, s:job] = [s:job, v:null]
  if job isnot v:null
    silent! call ch_close_in(s:channel)
    let waited = 0
    while job_status(job) ==# 'run' && waited < 500
      sleep 10m
      let waited += 10
    endwhile
  endif
endfunction
