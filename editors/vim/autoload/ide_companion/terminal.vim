" Gemini CLI in a terminal split, tied to this Vim. Once the companion is
" ready its GEMINI_CLI_IDE_* variables are in Vim's own environment (host.vim),
" so every :terminal, :!cmd and system() child started after that has them;
" :Gemini passes them to term_start() as well.

function! ide_companion#terminal#command() abort
  let cmd = get(g:, 'ide_companion_gemini_cmd', ['gemini'])
  return type(cmd) == v:t_list ? copy(cmd) : split(cmd)
endfunction

function! ide_companion#terminal#open(args) abort
  if !has('terminal')
    return ide_companion#util#error('this Vim has no +terminal; run gemini in another terminal after :GeminiEnv')
  endif
  " The running Gemini CLI terminal this plugin opened: run again, :Gemini goes back to it.
  let existing = filter(term_list(), {_, b -> getbufvar(b, 'ide_companion_gemini', 0) && term_getstatus(b) =~# 'running'})
  if !empty(existing) && empty(a:args)
    let wins = win_findbuf(existing[0])
    if !empty(wins)
      return win_gotoid(wins[0])
    endif
    execute get(g:, 'ide_companion_split', 'botright vertical') 'sbuffer' existing[0]
    return 1
  endif
  let cmd = ide_companion#terminal#command() + a:args
  if empty(cmd) || !executable(cmd[0])
    return ide_companion#util#error('`' . get(cmd, 0, '') . '` is not installed or not on PATH: install Gemini CLI (npm install -g @google/gemini-cli) or set g:ide_companion_gemini_cmd')
  endif
  " Not running: start it, and the terminal once it is ready.
  if ide_companion#host#when_ready({-> s:start(cmd)}) || (ide_companion#host#start() && ide_companion#host#when_ready({-> s:start(cmd)}))
    return 1
  endif
  return ide_companion#util#error('the companion is not running, so gemini could not connect to Vim (:GeminiHealth tells why)')
endfunction

function! s:start(cmd) abort
  execute get(g:, 'ide_companion_split', 'botright vertical') 'new'
  setlocal bufhidden=wipe
  let buf = term_start(a:cmd, {'curwin': 1, 'env': ide_companion#host#state().env, 'term_name': 'gemini', 'term_finish': 'close'})
  if buf > 0
    call setbufvar(buf, 'ide_companion_gemini', 1)
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
