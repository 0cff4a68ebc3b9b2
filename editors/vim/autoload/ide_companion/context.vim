" Editor events -> host. Cursor moves only arm a timer (a few ms, one per
" burst): the autocmd a keystroke pays for is one comparison. The timer reads
" the position and sends it; the host drops repeats and decides what the
" agent sees.

let s:timer = -1
" Before ModeChanged (8.2.3430) nothing fires when Visual mode ends without a
" move: while a selection is reported, a slow timer looks for its end.
let s:HAS_MODE_CHANGED = exists('##ModeChanged')
let s:visual_timer = -1
" buffer -> its file name before :file / :saveas
let s:renaming = {}
" The current buffer's file ('' when it shows none), worked out when the
" buffer changes, not at every cursor update; reset by what can change it.
let s:cur_buf = -1
let s:cur_path_json = '""'
" The start of a cursor message for the current file, JSON up to the line number.
let s:cur_head = ''

" Workspace roots: the global cwd, every :tcd and :lcd directory, and
" g:ide_companion_roots. The host makes them real paths and drops duplicates
" and folders that do not exist (yet).
function! ide_companion#context#roots() abort
  let dirs = [getcwd(-1)]
  for tabnr in range(1, tabpagenr('$'))
    call add(dirs, getcwd(-1, tabnr))
    let dirs += map(filter(range(1, tabpagewinnr(tabnr, '$')), {_, w -> haslocaldir(w, tabnr) == 1}), {_, w -> getcwd(w, tabnr)})
  endfor
  let configured = get(g:, 'ide_companion_roots', [])
  let configured = filter(type(configured) == v:t_list ? copy(configured) : [configured], {_, d -> type(d) == v:t_string && d !=# ''})
  return dirs + map(configured, {_, d -> fnamemodify(expand(d), ':p')})
endfunction

function! s:send_roots() abort
  call ide_companion#host#send({'type': 'roots', 'roots': ide_companion#context#roots()})
endfunction

" focus or cursor for the current window, if it shows a file.
function! s:send_position(type) abort
  if bufnr('') != s:cur_buf
    let s:cur_buf = bufnr('')
    let path = ide_companion#util#open_file_of(s:cur_buf)
    let s:cur_path_json = path ==# '' ? '' : json_encode(path)
    let s:cur_head = '{"type":"cursor","path":' . s:cur_path_json . ',"cursor":{"line":'
  endif
  if s:cur_path_json ==# ''
    return
  endif
  let pos = ide_companion#position#current()
  let json = '{"type":"' . a:type . '","path":' . s:cur_path_json . ',"cursor":{"line":' . pos.line . ',"character":' . pos.character . '}'
  if has_key(pos, 'anchor')
    " The range only: the host reads the text when it needs it (selectedText).
    let json .= ',"anchor":{"line":' . pos.anchor.line . ',"character":' . pos.anchor.character . '},"selectionKind":"' . pos.selectionKind . '"'
    if !s:HAS_MODE_CHANGED && s:visual_timer < 0
      let s:visual_timer = timer_start(50, function('s:visual_ended'), {'repeat': -1})
    endif
  endif
  call ide_companion#host#send_json(json . '}')
endfunction

function! s:visual_ended(timer) abort
  if mode() !~# "^[vVsS\<C-v>\<C-s>]"
    call timer_stop(a:timer)
    let s:visual_timer = -1
    call s:send_position('cursor')
  endif
endfunction

" What the timer runs: outside Visual and Select mode a few lines, no dict and
" no json_encode(). Compiled on Vim 9 (:def); legacy Vimscript reads each line
" anew every time, about a microsecond a line, so there it is as short as it
" can be (comments outside: they are read every time too).
if v:version >= 900
  let s:KIND_OF_MODE = {'v': 'char', 's': 'char', 'V': 'line', 'S': 'line', "\<C-v>": 'block', "\<C-s>": 'block'}
  def s:Flush(...args: list<any>)
    s:timer = -1
    if bufnr('') != s:cur_buf
      s:send_position('cursor')
      return
    endif
    if s:cur_path_json == ''
      return
    endif
    var json = s:cur_head .. line('.') .. ',"character":' .. max([charcol('.'), 1]) .. '}'
    var kind = get(s:KIND_OF_MODE, mode(), '')
    if kind != ''
      var anchor = getcharpos('v')
      json ..= ',"anchor":{"line":' .. anchor[1] .. ',"character":' .. max([anchor[2], 1]) .. '},"selectionKind":"' .. kind .. '"'
    endif
    ide_companion#host#send_json(json .. '}')
  enddef
  let s:flush_ref = function('s:Flush')
else
  function! s:flush(...) abort
    let s:timer = -1
    if bufnr('') != s:cur_buf || stridx("vVsS\<C-v>\<C-s>", mode()) >= 0
      return s:send_position('cursor')
    endif
    if s:cur_path_json ==# ''
      return
    endif
    call ide_companion#host#send_json(s:cur_head . line('.') . ',"character":' . ide_companion#util#char_col(getline('.'), col('.')) . '}}')
  endfunction
  let s:flush_ref = function('s:flush')
endif

function! s:focus() abort
  let s:cur_buf = -1
  " A pending cursor update would only repeat what focus sends now.
  call timer_stop(s:timer)
  let s:timer = -1
  call s:send_position('focus')
endfunction

" `open` only for a file the user has open (listed); more args (a timer's) are ignored.
function! s:send_path(type, buf, ...) abort
  let path = a:type ==# 'open' ? ide_companion#util#open_file_of(a:buf) : ide_companion#util#file_of(a:buf)
  if path !=# ''
    call ide_companion#host#send({'type': a:type, 'path': path})
  endif
endfunction

function! s:rename(buf, post) abort
  if !a:post
    let s:renaming[a:buf] = ide_companion#util#file_of(a:buf)
    return
  endif
  let [from, to] = [get(s:renaming, a:buf, ''), ide_companion#util#file_of(a:buf)]
  silent! call remove(s:renaming, a:buf)
  if from !=# ''
    call ide_companion#host#send(to !=# '' ? {'type': 'rename', 'from': from, 'to': to} : {'type': 'close', 'path': from})
  else
    call s:send_path('open', a:buf)
  endif
endfunction

function! ide_companion#context#attach() abort
  augroup ide_companion_context
    autocmd!
    autocmd BufEnter,WinEnter,FocusGained * call s:focus()
    " The whole cost of a keystroke: arm the timer once per burst (inline: a
    " call would cost more than the rest). Entering or leaving Visual mode
    " changes the selection without a move.
    execute 'autocmd CursorMoved,CursorMovedI' . (s:HAS_MODE_CHANGED ? ',ModeChanged' : '') . ' * if s:timer < 0 | let s:timer = timer_start(get(g:, "ide_companion_cursor_delay", 10), s:flush_ref) | endif'
    " A help or plugin buffer gets its 'buftype' and 'nobuflisted' after BufAdd: look later.
    autocmd BufAdd * call timer_start(0, function('s:send_path', ['open', str2nr(expand('<abuf>'))]))
    autocmd BufDelete,BufWipeout * call s:send_path('close', str2nr(expand('<abuf>')))
    autocmd BufWritePost * call s:send_path('saved', str2nr(expand('<abuf>')))
    autocmd BufFilePre * call s:rename(str2nr(expand('<abuf>')), 0)
    autocmd BufFilePost * call s:rename(str2nr(expand('<abuf>')), 1)
    " What can change the current buffer's file name or whether it counts.
    autocmd BufFilePost,BufWritePost,BufDelete,BufWipeout,DirChanged * let s:cur_buf = -1
    autocmd OptionSet buftype,buflisted let s:cur_buf = -1
    " After the window or tab is really gone.
    execute 'autocmd TabClosed,TabNew,DirChanged' . (exists('##WinClosed') ? ',WinClosed' : '') . ' * call timer_start(0, {-> s:send_roots()})'
  augroup END
  " What the host must know at once: the current file, every other listed
  " file buffer (ranked below it), the roots.
  call s:send_position('focus')
  for info in filter(getbufinfo({'buflisted': 1}), {_, b -> b.bufnr != bufnr('')})
    call s:send_path('open', info.bufnr)
  endfor
  call s:send_roots()
endfunction

function! ide_companion#context#detach() abort
  silent! autocmd! ide_companion_context
  silent! augroup! ide_companion_context
  call timer_stop(s:timer)
  call timer_stop(s:visual_timer)
  let [s:timer, s:visual_timer, s:cur_buf, s:renaming] = [-1, -1, -1, {}]
endfunction

" What the timer does when it fires, at once (for the benchmark).
function! ide_companion#context#flush_now() abort
  call timer_stop(s:timer)
  call s:flush_ref()
endfunction
