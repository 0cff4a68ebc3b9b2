" Messages and small helpers shared by the modules.

" Never :echoerr: a callback must not abort what the user is doing.
function! ide_companion#util#say(group, msg) abort
  execute 'echohl' a:group
  echomsg 'ide-companion: ' . a:msg
  echohl None
endfunction

function! ide_companion#util#info(msg) abort
  call ide_companion#util#say('None', a:msg)
endfunction

function! ide_companion#util#warn(msg) abort
  call ide_companion#util#say('WarningMsg', a:msg)
endfunction

function! ide_companion#util#error(msg) abort
  call ide_companion#util#say('ErrorMsg', a:msg)
endfunction

" The file a buffer shows as an absolute path, or '' for terminals, help,
" scratch, plugin and URL-like buffers (fugitive://, scp://).
function! ide_companion#util#file_of(buf) abort
  if a:buf <= 0 || !bufexists(a:buf) || getbufvar(a:buf, '&buftype') !=# ''
    return ''
  endif
  let name = bufname(a:buf)
  " A terminal is named "!cmd" and gets its 'buftype' only after BufAdd.
  if name ==# '' || name =~# '^\a[[:alnum:]+.-]*://' || (name[0] ==# '!' && !filereadable(name))
    return ''
  endif
  return fnamemodify(name, ':p')
endfunction

" A file buffer the user has open: listed (help and plugin buffers are not).
function! ide_companion#util#open_file_of(buf) abort
  return buflisted(a:buf) ? ide_companion#util#file_of(a:buf) : ''
endfunction

" File buffers showing `path`, through symlinks too: loaded ones, or
" (`listed`) the listed ones, loaded first (with 'nohidden' a file the user
" left is unloaded but still open).
function! ide_companion#util#buffers_of(path, ...) abort
  let want = resolve(a:path)
  let found = []
  for info in getbufinfo(a:0 ? {'buflisted': 1} : {'bufloaded': 1})
    let file = ide_companion#util#file_of(info.bufnr)
    if file !=# '' && (file ==# a:path || resolve(file) ==# want)
      call add(found, info.bufnr)
    endif
  endfor
  return sort(found, {a, b -> bufloaded(b) - bufloaded(a)})
endfunction

" Runs `cmd` in a window showing `buf`, or else in a moment's split; the user's window stays current.
function! ide_companion#util#in_window_of(buf, cmd) abort
  let wins = win_findbuf(a:buf)
  if !empty(wins)
    return win_execute(wins[0], a:cmd)
  endif
  let back = win_getid()
  try
    execute 'silent keepalt keepjumps noswapfile sbuffer' a:buf
    execute a:cmd
  finally
    " Hidden, not closed: closing would unload the buffer, and its undo with it.
    if bufnr('') == a:buf && win_getid() != back
      hide
    endif
    call win_gotoid(back)
  endtry
endfunction

" Character column (1-based) of byte column `col` in `line`.
function! ide_companion#util#char_col(line, col) abort
  return strchars(strpart(a:line, 0, a:col - 1)) + 1
endfunction

" Byte column (1-based) of character column `char` in `line`.
function! ide_companion#util#byte_col(line, char) abort
  let idx = a:char <= 1 ? 0 : byteidx(a:line, a:char - 1)
  return idx < 0 ? len(a:line) + 1 : idx + 1
endfunction
