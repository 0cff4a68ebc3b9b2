" :GeminiHealth: everything the companion depends on, one line each.

function! s:line(ok, text) abort
  return (a:ok ? 'OK    ' : 'ERROR ') . a:text
endfunction

function! ide_companion#health#report() abort
  let ok_vim = v:version >= 802 && has('job') && has('channel') && has('timers')
  let lines = [s:line(ok_vim, printf('Vim %d.%d%s', v:version / 100, v:version % 100, ok_vim ? ' with +job +channel +timers' : ': needs 8.2+ with +job +channel +timers')),
        \ s:line(has('terminal'), has('terminal') ? '+terminal: :Gemini opens gemini in a split' : 'no +terminal: run gemini outside Vim after :GeminiEnv'),
        \ s:line(&encoding ==# 'utf-8', "'encoding' is " . &encoding . (&encoding ==# 'utf-8' ? '' : ': needs utf-8'))]
  let node = ide_companion#host#node()
  if !executable(node)
    call add(lines, s:line(0, 'Node.js: `' . node . '` not found on PATH; install Node.js 20+ or set g:ide_companion_node'))
  else
    let node_version = trim(system(shellescape(exepath(node)) . ' --version'))
    let ok = str2nr(matchstr(node_version, '^v\zs\d\+')) >= 20
    call add(lines, s:line(ok, 'Node.js ' . node_version . ' at ' . exepath(node) . (ok ? '' : ': needs 20 or newer')))
  endif
  let [host, origin] = ide_companion#host#found()
  call add(lines, s:line(host !=# '', host !=# '' ? 'bridge host: ' . host . ' (' . origin . ')' : 'bridge host missing (host/ide-companion-bridge.mjs): run `npm install` in the repository, install the ide-companion package (npm install -g), or set g:ide_companion_host'))
  let state = ide_companion#host#state()
  if state.status ==# 'running'
    call add(lines, s:line(1, printf('companion running on 127.0.0.1:%d, %d CLI session(s)%s', state.port, state.sessions, ide_companion#agents_connected(state))))
    call add(lines, s:line(1, 'agents served: ' . join(state.agents, ', ') . ' (g:ide_companion_agents chooses)'))
    let found = filereadable(state.discoveryFile)
    call add(lines, s:line(found, 'discovery file ' . state.discoveryFile . (found ? '' : ' is missing')))
    let socket = getftype(state.socketPath) ==# 'socket'
    call add(lines, s:line(socket, state.socketPath ==# '' ? 'no socket: gemini in a container or over SSH cannot reach this Vim (see the host log)'
          \ : 'socket ' . state.socketPath . (socket ? ': for gemini in a container, --sandbox or over SSH (ide-companion container, sandbox or ssh HOST; docs/remote.md)' : ' is missing')))
    if state.containerHint !=# ''
      call add(lines, s:line(0, 'container: ' . state.containerHint))
    endif
  else
    call add(lines, s:line(0, 'companion ' . state.status . (state.lastError ==# '' ? '' : ': ' . state.lastError)))
    let lines += map(state.stderr[-5:], {_, err -> '      host: ' . err})
  endif
  let gemini = get(ide_companion#terminal#command(), 0, 'gemini')
  return add(lines, s:line(executable(gemini), executable(gemini) ? 'gemini: ' . exepath(gemini) : '`' . gemini . '` not on PATH (npm install -g @google/gemini-cli)'))
endfunction
