" :GeminiHealth: what must work before a host runs is checked here; a running
" host's findings are its own (packages/server/src/healthLines.ts), asked for now.

function! s:line(ok, text) abort
  return (a:ok ? 'ok   ' : 'FAIL ') . a:text
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
    let lines += ide_companion#host#health()
  else
    call add(lines, s:line(0, 'companion ' . state.status . (state.lastError ==# '' ? '' : ': ' . state.lastError)))
    let lines += map(state.stderr[-5:], {_, err -> '      host: ' . err})
  endif
  let gemini = get(ide_companion#terminal#command(), 0, 'gemini')
  return add(lines, s:line(executable(gemini), executable(gemini) ? 'gemini: ' . exepath(gemini) : '`' . gemini . '` not on PATH (npm install -g @google/gemini-cli)'))
endfunction
