" Cursor and visual selection of the current window as Gemini CLI wants them:
" 1-based line and character (characters, not bytes) and the selected text.

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

" The text of a selection of `kind` ('v', 'V', CTRL-V) from byte position
" sl:sc to el:ec: at least `max` characters of it (or all), when given.
function! s:text_between(kind, sl, sc, el, ec, ...) abort
  let [sl, sc, el, ec] = [a:sl, a:sc, a:el, a:ec]
  let max = a:0 ? a:1 : s:MAXCOL
  let [lines, complete] = s:lines_capped(sl, el, max)
  if empty(lines)
    return ''
  endif
  return s:selected_lines(lines, complete, a:kind, sl, sc, el, ec)
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

" The kind of selection of mode `mode`: 'v', 'V', CTRL-V, or '' outside Visual and Select mode.
function! s:kind(mode) abort
  return a:mode ==# 'v' || a:mode ==# 's' ? 'v'
        \ : a:mode ==# 'V' || a:mode ==# 'S' ? 'V'
        \ : a:mode ==# "\<C-v>" || a:mode ==# "\<C-s>" ? "\<C-v>" : ''
endfunction

let s:KIND_NAMES = {'v': 'char', 'V': 'line', "\<C-v>": 'block'}

" {line, character, anchor?, selectionKind?} of the current window: in Visual
" and Select mode the selection's other end (1-based, in characters) and its
" kind. The host reads the text (selectedText) when it needs it.
function! ide_companion#position#current() abort
  let result = {'line': line('.'), 'character': max([s:cursor_char(), 1])}
  let kind = s:kind(mode())
  if kind !=# ''
    let [vl, vc] = getpos('v')[1:2]
    let result.anchor = {'line': vl, 'character': ide_companion#util#char_col(getline(vl), vc)}
    let result.selectionKind = s:KIND_NAMES[kind]
  endif
  return result
endfunction

" The selectedText action: the live selection's text, at least `max`
" characters of it (or all), or v:null outside Visual and Select mode.
function! ide_companion#position#selected_text(max) abort
  let kind = s:kind(mode())
  if kind ==# ''
    return v:null
  endif
  let [vl, vc] = getpos('v')[1:2]
  let [cl, cc] = getpos('.')[1:2]
  let text = cl < vl || (cl == vl && cc < vc) ? s:text_between(kind, cl, cc, vl, vc, a:max) : s:text_between(kind, vl, vc, cl, cc, a:max)
  return text ==# '' ? v:null : text
endfunction

" The selection for getSelection: the live one in Visual mode, else the last
" one (the '< and '> marks) of the current buffer; {} when there is none.
" {path-less: text, start, end}, positions 1-based in characters.
function! ide_companion#position#selection() abort
  let mode = mode()
  if mode =~# "^[vVsS\<C-v>\<C-s>]"
    let kind = s:kind(mode)
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
