" Gemini CLI (:Gemini) or an ACP agent under `ide-companion agent` (:IdeAgent,
" kind 'agent') in a terminal split, tied to this Vim. Once the companion is
" ready its GEMINI_CLI_IDE_* variables are in Vim's own environment (host.vim),
" so every :terminal, :!cmd and system() child started after that has them;
" both pass them to term_start() as well.

function! ide_companion#terminal#command(...) abort
  let cmd = a:0 && a:1 ==# 'agent' ? get(g:, 'ide_companion_agent_command', []) : get(g:, 'ide_companion_gemini_cmd', ['gemini'])
  return type(cmd) == v:t_list ? copy(cmd) : split(cmd)
endfunction

function! ide_companion#terminal#open(args, ...) abort
  let kind = a:0 ? a:1 : 'gemini'
  if !has('terminal')
    return ide_companion#util#error('this Vim has no +terminal; run gemini in another terminal after :GeminiEnv')
  endif
  " The running terminal of this kind this plugin opened: run again, :Gemini goes back to it.
  let existing = filter(term_list(), {_, b -> getbufvar(b, 'ide_companion_' . kind, 0) && term_getstatus(b) =~# 'running'})
  if !empty(existing) && empty(a:args)
    let wins = win_findbuf(existing[0])
    if !empty(wins)
      return win_gotoid(wins[0])
    endif
    execute get(g:, 'ide_companion_split', 'botright vertical') 'sbuffer' existing[0]
    return 1
  endif
  let cmd = kind ==# 'agent' && !empty(a:args) ? a:args : ide_companion#terminal#command(kind) + (kind ==# 'agent' ? [] : a:args)
  if kind ==# 'agent' && empty(cmd)
    return ide_companion#util#error("give the ACP agent's command (:IdeAgent gemini --acp) or set g:ide_companion_agent_command; `ide-companion agent --list` names the ones on PATH")
  elseif empty(cmd) || !executable(cmd[0])
    return ide_companion#util#error('`' . get(cmd, 0, '') . '` is not installed or not on PATH: ' . (kind ==# 'agent' ? 'install it or set g:ide_companion_agent_command'
          \ : 'install Gemini CLI (npm install -g @google/gemini-cli) or set g:ide_companion_gemini_cmd'))
  endif
  " Not running: start it, and the terminal once it is ready.
  if ide_companion#host#when_ready({-> s:start(cmd, kind)}) || (ide_companion#host#start() && ide_companion#host#when_ready({-> s:start(cmd, kind)}))
    return 1
  endif
  return ide_companion#util#error('the companion is not running, so ' . cmd[0] . ' could not connect to Vim (:GeminiHealth tells why)')
endfunction

function! s:start(cmd, kind) abort
  " The agent runs under `ide-companion agent --`, as the host found it (shared/acpLauncher.ts).
  let acp = ide_companion#host#state().acp
  if a:kind ==# 'agent' && !has_key(acp, 'argv')
    return ide_companion#util#error(get(acp, 'missing', 'this host runs no ACP agents'))
  endif
  execute get(g:, 'ide_companion_split', 'botright vertical') 'new'
  setlocal bufhidden=wipe
  " The agent's terminal stays when it ends: what it said then (an agent that would not start) is read there.
  let opts = {'curwin': 1, 'env': ide_companion#host#state().env, 'term_name': a:kind ==# 'agent' ? 'ide-companion agent' : 'gemini'}
  let buf = term_start((a:kind ==# 'agent' ? acp.argv : []) + a:cmd, extend(opts, a:kind ==# 'agent' ? {} : {'term_finish': 'close'}))
  if buf > 0
    call setbufvar(buf, 'ide_companion_' . a:kind, 1)
  endif
endfunction

" :GeminiEnv prints the export lines that tie a shell outside Vim (a tmux
" pane) to this Vim; :GeminiEnv FILE writes them to FILE (mode 600: the token
" is in it) for `. FILE` there.
function! ide_companion#terminal#env(file) abort
  let env = ide_companion#host#state().env
  if empty(env)
    return ide_companion#util#error('the companion is not running (:GeminiStart)')
  endif
  let lines = map(sort(keys(env)), {_, name -> 'export ' . name . '=' . shellescape(env[name])})
  if a:file ==# ''
    echo join(lines, "\n")
    return
  endif
  let file = fnamemodify(expand(a:file), ':p')
  call writefile([], file)
  call setfperm(file, 'rw-------')
  call writefile(lines, file)
  call ide_companion#util#info('wrote ' . file . '; in the other shell: . ' . shellescape(file) . ' && gemini')
endfunction
