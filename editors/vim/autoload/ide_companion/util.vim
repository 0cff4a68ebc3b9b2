" Messages and small helpers shared by the modules.

" Messages never use :echoerr: a callback must not abort what the user is doing.
function! ide_companion#util#info(msg) abort
  echomsg 'ide-companion: ' . a:msg
endfunction

function! ide_companion#util#warn(msg) abort
  echohl WarningMsg
  echomsg 'ide-companion: ' . a:msg
  echohl None
endfunction

function! ide_companion#util#error(msg) abort
  echohl ErrorMsg
  echomsg 'ide-companion: ' . a:msg
  echohl None
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

" Loaded file buffers showing `path`, through symlinks too.
function! ide_companion#util#buffers_of(path) abort
  let want = resolve(a:path)
  let found = []
  for info in getbufinfo({'bufloaded': 1})
    let file = ide_companion#util#file_of(info.bufnr)
    if file !=# '' && (file ==# a:path || resolve(file) ==# want)
      call add(found, info.bufnr)
    endif
  endfor
  return found
endfunction

" Character column (1-based, in characters) of byte column `col` in `line`.
function! ide_companion#util#char_col(line, col) abort
  return strchars(strpart(a:line, 0, a:col - 1)) + 1
endfunction

" Byte column (1-based) of character column `char` in `line`.
function! ide_companion#util#byte_col(line, char) abort
  if a:char <= 1
    return 1
  endif
  let idx = byteidx(a:line, a:char - 1)
  return idx < 0 ? len(a:line) + 1 : idx + 1
endfunction
