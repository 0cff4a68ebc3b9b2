" Cursor and visual selection of the current window as Gemini CLI wants them:
" 1-based line and character (characters, not bytes) and the selected text.

" Gemini CLI keeps 16384 UTF-16 units of a selection; the host cuts and marks
" it. Collecting a little more than that is enough, and bounds the work per
" cursor move in a huge selection.
let s:MAX_SELECTION_CHARS = 16384 + 1
let s:CHUNK_LINES = 256
let s:MAXCOL = 2147483647

" charcol() came with Vim 8.2.2233; before it, count the characters before the cursor.
if exists('*charcol')
  function! s:cursor_char() abort
    return charcol('.')
  endfunction
else
  function! s:cursor_char() abort
    return strchars(strpart(getline('.'), 0, col('.') - 1)) + 1
  endfunction
endif

" The cursor's character column (1-based, in characters) in the current window.
function! ide_companion#position#cursor_char() abort
  return s:cursor_char()
endfunction

" Lines first..last, stopping once more than `max` characters are collected.
" Returns [lines, complete]. Chunks double in size and are measured joined:
" a Vimscript loop per line would cost microseconds per line, and a first
" chunk of one line keeps a file of huge lines cheap too.
function! s:lines_capped(first, last, max) abort
  let out = []
  let chars = 0
  let row = a:first
  let size = 1
  while row <= a:last
    let chunk = getline(row, min([a:last, row + size - 1]))
    call extend(out, chunk)
    let chars += strchars(join(chunk, "\n")) + 1
    let row += size
    if chars > a:max
      return [out, row > a:last]
    endif
    let size = min([size * 2, 1024])
  endwhile
  return [out, 1]
endfunction

" Byte length of the character at byte column `col` (1-based) of `line`.
function! s:char_len(line, col) abort
  return len(matchstr(a:line, '\%' . a:col . 'c.'))
endfunction

" The last characterwise or linewise selection cut at the cap, while its
" start, the buffer and its text stay the same: moving the far end of a
" selection longer than Gemini CLI keeps (past the lines read) changes nothing
" it sees, and is not read again. [key, first row not read, text]
let s:capped = [[], 0, '']

" The text of the selection of `kind` from sl:sc to el:ec (byte positions, in order).
function! s:selected_text(kind, sl, sc, el, ec) abort
  let [sl, sc, el, ec] = [a:sl, a:sc, a:el, a:ec]
  if a:kind ==# "\<C-v>"
    return s:text_between(a:kind, sl, sc, el, ec)
  endif
  let key = [bufnr(''), b:changedtick, a:kind, sl, sc]
  if el >= s:capped[1] && s:capped[0] ==# key
    return s:capped[2]
  endif
  let [lines, complete] = s:lines_capped(sl, el, s:MAX_SELECTION_CHARS)
  if empty(lines)
    return ''
  endif
  let text = strcharpart(s:selected_lines(lines, complete, a:kind, sl, sc, el, ec), 0, s:MAX_SELECTION_CHARS)
  let s:capped = complete ? [[], 0, ''] : [key, sl + len(lines), text]
  return text
endfunction

" `text` as a JSON string; the last one is kept, as a long selection is sent
" again on every move of its far end.
let s:json = ['', '""']
function! ide_companion#position#json(text) abort
  if a:text !=# s:json[0]
    let s:json = [a:text, json_encode(a:text)]
  endif
  return s:json[1]
endfunction

" The text of a selection of `kind` ('v', 'V', CTRL-V) from byte position sl:sc to el:ec.
function! s:text_between(kind, sl, sc, el, ec) abort
  let [sl, sc, el, ec] = [a:sl, a:sc, a:el, a:ec]
  let [lines, complete] = s:lines_capped(sl, el, s:MAX_SELECTION_CHARS)
  if empty(lines)
    return ''
  endif
  let text = s:selected_lines(lines, complete, a:kind, sl, sc, el, ec)
  return strcharpart(text, 0, s:MAX_SELECTION_CHARS)
endfunction

function! s:selected_lines(lines, complete, kind, sl, sc, el, ec) abort
  let [lines, sl, sc, el, ec] = [a:lines, a:sl, a:sc, a:el, a:ec]
  if a:kind ==# 'V'
    return join(lines, "\n")
  endif
  if a:kind ==# "\<C-v>"
    " By screen column, as Vim draws the block (tabs and wide characters included).
    let [left, right] = sort([virtcol([sl, sc]), virtcol([el, ec])], 'n')
    if getcurpos()[4] >= s:MAXCOL
      let right = s:MAXCOL - 1
    endif
    let pattern = '\%>' . (left - 1) . 'v.*\%<' . (right + 1) . 'v.'
    return join(map(lines, 'matchstr(v:val, pattern)'), "\n")
  endif
  if a:complete
    let last = lines[-1]
    let stop = &selection ==# 'exclusive' ? ec - 1 : ec - 1 + s:char_len(last, ec)
    let lines[-1] = strpart(last, 0, stop)
  endif
  " The end is cut first, so `sc` still counts from the start of the first line.
  let lines[0] = strpart(lines[0], sc - 1)
  return join(lines, "\n")
endfunction

" {line, character, selectedText?, selectionBackward?} of the current window.
" selectionBackward (1, only with selectedText) when the cursor is before the
" other end of the selection (line first, then column; for every kind), so at
" its start: Claude Code's selection range is worked out from the cursor.
function! ide_companion#position#current() abort
  let result = {'line': line('.'), 'character': max([s:cursor_char(), 1])}
  let mode = mode()
  let kind = mode ==# 'v' || mode ==# 's' ? 'v'
        \ : mode ==# 'V' || mode ==# 'S' ? 'V'
        \ : mode ==# "\<C-v>" || mode ==# "\<C-s>" ? "\<C-v>" : ''
  if kind !=# ''
    let [vl, vc] = getpos('v')[1:2]
    let [cl, cc] = [result.line, col('.')]
    let backward = cl < vl || (cl == vl && cc < vc)
    let text = backward ? s:selected_text(kind, cl, cc, vl, vc) : s:selected_text(kind, vl, vc, cl, cc)
    if text !=# ''
      let result.selectedText = text
      if backward
        let result.selectionBackward = 1
      endif
    endif
  endif
  return result
endfunction

" The selection for getSelection: the live one in Visual mode, else the last
" one (the '< and '> marks) of the current buffer; {} when there is none.
" {path-less: text, start, end}, positions 1-based in characters.
function! ide_companion#position#selection() abort
  let mode = mode()
  if mode =~# "^[vVsS\<C-v>\<C-s>]"
    let kind = mode ==# 'v' || mode ==# 's' ? 'v' : mode ==# 'V' || mode ==# 'S' ? 'V' : "\<C-v>"
    let [sl, sc] = getpos('v')[1:2]
    let [el, ec] = getpos('.')[1:2]
  else
    let kind = visualmode()
    let [sl, sc] = getpos("'<")[1:2]
    let [el, ec] = getpos("'>")[1:2]
    if kind ==# '' || sl == 0 || el == 0
      return {}
    endif
  endif
  if sl > el || (sl == el && sc > ec)
    let [sl, sc, el, ec] = [el, ec, sl, sc]
  endif
  let first = getline(sl)
  let last = getline(el)
  if kind ==# 'V'
    let [sc, ec] = [1, max([len(last), 1])]
  endif
  " A selection made with $ ends past the line.
  let ec = min([ec, max([len(last), 1])])
  return {
        \ 'text': s:text_between(kind, sl, sc, el, ec),
        \ 'start': {'line': sl, 'character': ide_companion#util#char_col(first, sc)},
        \ 'end': {'line': el, 'character': kind ==# 'V' ? max([strchars(last), 1]) : ide_companion#util#char_col(last, ec)},
        \ }
endfunction
