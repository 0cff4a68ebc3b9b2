" Cursor and selection of the current window: 1-based lines and characters
" (not bytes), and the selected text.

let s:MAXCOL = 2147483647
" Mode -> [kind of selection, its name on the wire]; '' outside Visual and Select mode.
let s:KINDS = {'v': ['v', 'char'], 's': ['v', 'char'], 'V': ['V', 'line'], 'S': ['V', 'line'], "\<C-v>": ["\<C-v>", 'block'], "\<C-s>": ["\<C-v>", 'block']}

" Lines first..last, stopping once more than `max` characters are collected:
" [lines, complete]. Chunks double in size and are measured joined (a loop per
" line costs microseconds a line; a first chunk of one line keeps huge lines cheap).
function! s:lines_capped(first, last, max) abort
  let [out, chars, row, size] = [[], 0, a:first, 1]
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

" The text of a selection of `kind` ('v', 'V', CTRL-V) from byte position
" sl:sc to el:ec: at least `max` characters of it (or all).
function! s:text_between(kind, sl, sc, el, ec, max) abort
  let [lines, complete] = s:lines_capped(a:sl, a:el, a:max)
  if empty(lines) || a:kind ==# 'V'
    return join(lines, "\n")
  elseif a:kind ==# "\<C-v>"
    " By screen column, as Vim draws the block (tabs and wide characters included).
    let [left, right] = sort([virtcol([a:sl, a:sc]), virtcol([a:el, a:ec])], 'n')
    let right = getcurpos()[4] >= s:MAXCOL ? s:MAXCOL - 1 : right
    let pattern = '\%>' . (left - 1) . 'v.*\%<' . (right + 1) . 'v.'
    return join(map(lines, 'matchstr(v:val, pattern)'), "\n")
  endif
  if complete
    " With 'selection' inclusive the last character is in, whatever its byte length.
    let lines[-1] = strpart(lines[-1], 0, a:ec - 1 + (&selection ==# 'exclusive' ? 0 : len(matchstr(lines[-1], '\%' . a:ec . 'c.'))))
  endif
  " The end is cut first, so `sc` still counts from the start of the first line.
  let lines[0] = strpart(lines[0], a:sc - 1)
  return join(lines, "\n")
endfunction

" {line, character, anchor?, selectionKind?}: in Visual and Select mode the
" selection's other end and kind; the host reads the text when it needs it.
function! ide_companion#position#current() abort
  let result = {'line': line('.'), 'character': ide_companion#util#char_col(getline('.'), col('.'))}
  let kind = get(s:KINDS, mode(), [])
  if !empty(kind)
    let [vl, vc] = getpos('v')[1:2]
    let result.anchor = {'line': vl, 'character': ide_companion#util#char_col(getline(vl), vc)}
    let result.selectionKind = kind[1]
  endif
  return result
endfunction

" selectedText: the live selection's text, or the one just ended in this
" file (asked after <Esc>: the host keeps it), at least `max` characters of it (or all).
function! ide_companion#position#selected_text(max) abort
  let kind = get(s:KINDS, mode(), [''])[0]
  let [v, c] = kind ==# '' ? [getpos("'<")[1:2], getpos("'>")[1:2]] : [getpos('v')[1:2], getpos('.')[1:2]]
  let kind = kind ==# '' && ide_companion#util#open_file_of(bufnr('')) !=# '' && v[0] > 0 ? visualmode() : kind
  if kind ==# ''
    return v:null
  endif
  let [a, b] = c[0] < v[0] || (c[0] == v[0] && c[1] < v[1]) ? [c, v] : [v, c]
  let text = s:text_between(kind, a[0], a[1], b[0], b[1], a:max)
  return text ==# '' ? v:null : text
endfunction

" getSelection: the live one in Visual mode, else the last one ('< and '>)
" of the current buffer: {text, start, end}, or {} when there is none.
function! ide_companion#position#selection() abort
  let kind = get(s:KINDS, mode(), [''])[0]
  if kind !=# ''
    let [sl, sc, el, ec] = getpos('v')[1:2] + getpos('.')[1:2]
  else
    let kind = visualmode()
    let [sl, sc, el, ec] = getpos("'<")[1:2] + getpos("'>")[1:2]
    if kind ==# '' || sl == 0 || el == 0
      return {}
    endif
  endif
  if sl > el || (sl == el && sc > ec)
    let [sl, sc, el, ec] = [el, ec, sl, sc]
  endif
  let [first, last] = [getline(sl), getline(el)]
  if kind ==# 'V'
    let sc = 1
  endif
  " A selection made with $ (or linewise) ends past the line.
  let ec = kind ==# 'V' ? max([len(last), 1]) : min([ec, max([len(last), 1])])
  return {'text': s:text_between(kind, sl, sc, el, ec, s:MAXCOL),
        \ 'start': {'line': sl, 'character': ide_companion#util#char_col(first, sc)},
        \ 'end': {'line': el, 'character': kind ==# 'V' ? max([strchars(last), 1]) : ide_companion#util#char_col(last, ec)}}
endfunction
