" Editor events -> host. Cursor moves only arm a timer (a few ms, one per
" burst): the autocmd a keystroke pays for is one comparison. The timer reads
" the position once and sends it if it changed; the host's tracker decides
" what Gemini CLI sees.

let s:attached = 0
let s:timer = -1
" Before ModeChanged (8.2.3430) nothing fires when Visual mode ends without a
" move: while a selection is reported, a slow timer looks for its end.
let s:HAS_MODE_CHANGED = exists('##ModeChanged')
let s:visual_timer = -1
let s:last_roots = []
" buffer -> its file name before :file / :saveas
let s:renaming = {}
" The current buffer's file ('' when it shows none), worked out when the
" buffer changes, not on every cursor update; reset by what can change it.
let s:cur_buf = -1
let s:cur_path = ''
let s:cur_path_json = '""'
" The start of a cursor message for s:cur_path, JSON up to the line number.
let s:cur_head = ''
let s:HAS_CHARCOL = exists('*charcol')

" Workspace roots: the global cwd, every tab-local and window-local cwd
" (:tcd, :lcd), and g:ide_companion_roots; real paths, no duplicates.
function! ide_companion#context#roots() abort
  let roots = []
  let dirs = [getcwd(-1)]
  for tabnr in range(1, tabpagenr('$'))
    call add(dirs, getcwd(-1, tabnr))
    for winnr in range(1, tabpagewinnr(tabnr, '$'))
      if haslocaldir(winnr, tabnr) == 1
        call add(dirs, getcwd(winnr, tabnr))
      endif
    endfor
  endfor
  let configured = get(g:, 'ide_companion_roots', [])
  for dir in dirs + (type(configured) == v:t_list ? configured : [configured])
    if type(dir) != v:t_string || dir ==# ''
      continue
    endif
    let real = resolve(fnamemodify(expand(dir), ':p'))
    let real = len(real) > 1 ? substitute(real, '/\+$', '', '') : real
    " A configured folder that does not exist (yet) is no workspace.
    if isdirectory(real) && index(roots, real) < 0
      call add(roots, real)
    endif
  endfor
  return roots
endfunction

function! s:send_roots() abort
  let roots = ide_companion#context#roots()
  if roots !=# s:last_roots
    let s:last_roots = roots
    call ide_companion#host#send({'type': 'roots', 'roots': roots})
  endif
endfunction

" focus or cursor for the current window, if it shows a file.
function! s:send_position(type) abort
  let buf = bufnr('')
  if buf != s:cur_buf
    let s:cur_buf = buf
    let s:cur_path = ide_companion#util#open_file_of(buf)
    let s:cur_path_json = json_encode(s:cur_path)
    let s:cur_head = '{"type":"cursor","path":' . s:cur_path_json . ',"cursor":{"line":'
  endif
  if s:cur_path ==# ''
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

function! s:forget_current() abort
  let s:cur_buf = -1
endfunction

" What the timer runs. Outside Visual and Select mode (no selection) the
" position is read and sent in a few lines, with no dict and no
" json_encode(); the host drops repeats. On Vim 9 compiled (:def); legacy Vimscript
" reads and runs each line anew every time, about a microsecond a line and
" several a call, so there it is as short as it can be (comments stay outside:
" they are read every time too).
if v:version >= 900
  " In Visual and Select mode the selection's other end and kind go too (its
  " range; the host reads the text when it needs it).
  let s:KIND_OF_MODE = {'v': 'char', 's': 'char', 'V': 'line', 'S': 'line', "\<C-v>": 'block', "\<C-s>": 'block'}
  def s:Flush(...args: list<any>)
    s:timer = -1
    if bufnr('') != s:cur_buf
      s:send_position('cursor')
      return
    endif
    if s:cur_path == ''
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
    if s:cur_path ==# ''
      return
    endif
    call ide_companion#host#send_json(s:cur_head . line('.') . ',"character":' . max([s:HAS_CHARCOL ? charcol('.') : ide_companion#position#cursor_char(), 1]) . '}}')
  endfunction
  let s:flush_ref = function('s:flush')
endif

function! s:focus() abort
  let s:cur_buf = -1
  " A pending cursor update would only repeat what focus sends now.
  if s:timer >= 0
    call timer_stop(s:timer)
    let s:timer = -1
  endif
  call s:send_position('focus')
endfunction

function! s:send_path(type, buf) abort
  let path = ide_companion#util#file_of(a:buf)
  if path !=# ''
    call ide_companion#host#send({'type': a:type, 'path': path})
  endif
endfunction

function! s:added(buf) abort
  " A help or plugin buffer gets its 'buftype' and 'nobuflisted' after BufAdd: look later.
  call timer_start(0, {-> ide_companion#util#open_file_of(a:buf) !=# '' ? s:send_path('open', a:buf) : 0})
endfunction

function! s:rename_pre(buf) abort
  let s:renaming[a:buf] = ide_companion#util#file_of(a:buf)
endfunction

function! s:rename_post(buf) abort
  let from = get(s:renaming, a:buf, '')
  silent! call remove(s:renaming, a:buf)
  let to = ide_companion#util#file_of(a:buf)
  if from !=# '' && to !=# ''
    call ide_companion#host#send({'type': 'rename', 'from': from, 'to': to})
  elseif from !=# ''
    call ide_companion#host#send({'type': 'close', 'path': from})
  elseif to !=# ''
    call s:send_path('open', a:buf)
  endif
endfunction

" What the host must know at once: the current file, every other listed file
" buffer (ranked below it), the roots.
function! ide_companion#context#sync() abort
  let current = bufnr('')
  call s:send_position('focus')
  for info in getbufinfo({'buflisted': 1})
    if info.bufnr != current && ide_companion#util#file_of(info.bufnr) !=# ''
      call s:send_path('open', info.bufnr)
    endif
  endfor
  let s:last_roots = []
  call s:send_roots()
endfunction

function! ide_companion#context#attach() abort
  augroup ide_companion_context
    autocmd!
    autocmd BufEnter,WinEnter,FocusGained * call s:focus()
    " The whole cost of a keystroke: arm the timer once per burst (inline: a
    " call would cost more than the rest).
    autocmd CursorMoved,CursorMovedI * if s:timer < 0 | let s:timer = timer_start(get(g:, 'ide_companion_cursor_delay', 10), s:flush_ref) | endif
    " Entering or leaving Visual mode changes the selection without a move.
    if s:HAS_MODE_CHANGED
      autocmd ModeChanged * if s:timer < 0 | let s:timer = timer_start(get(g:, 'ide_companion_cursor_delay', 10), s:flush_ref) | endif
    endif
    autocmd BufAdd * call s:added(str2nr(expand('<abuf>')))
    autocmd BufDelete,BufWipeout * call s:send_path('close', str2nr(expand('<abuf>')))
    autocmd BufWritePost * call s:send_path('saved', str2nr(expand('<abuf>')))
    autocmd BufFilePre * call s:rename_pre(str2nr(expand('<abuf>')))
    autocmd BufFilePost * call s:rename_post(str2nr(expand('<abuf>')))
    " What can change the current buffer's file name or whether it counts.
    autocmd BufFilePost,BufWritePost,BufDelete,BufWipeout * call s:forget_current()
    autocmd OptionSet buftype,buflisted call s:forget_current()
    if exists('##DirChanged')
      autocmd DirChanged * call s:forget_current()
    endif
    " After the window or tab is really gone.
    autocmd TabClosed,TabNew * call timer_start(0, {-> s:send_roots()})
    if exists('##DirChanged')
      autocmd DirChanged * call timer_start(0, {-> s:send_roots()})
    endif
    if exists('##WinClosed')
      autocmd WinClosed * call timer_start(0, {-> s:send_roots()})
    endif
  augroup END
  let s:attached = 1
  call ide_companion#context#sync()
endfunction

function! ide_companion#context#detach() abort
  silent! autocmd! ide_companion_context
  silent! augroup! ide_companion_context
  for timer in [s:timer, s:visual_timer]
    if timer >= 0
      call timer_stop(timer)
    endif
  endfor
  let s:timer = -1
  let s:visual_timer = -1
  let s:attached = 0
  let s:cur_buf = -1
  let s:last_roots = []
  let s:renaming = {}
endfunction

" What the timer does when it fires, at once (for the benchmark): reads the
" position and sends it if it changed.
function! ide_companion#context#flush_now() abort
  call timer_stop(s:timer)
  call s:flush_ref()
endfunction
