" Text <-> buffer lines, byte for byte (as editors/neovim/src/host/bufferText.ts):
" 'fileformat', 'endofline' and 'fixendofline' are chosen so that an unedited
" buffer gives back its text exactly, an edited one what `:w` would write.
" Vim strings cannot hold NULs: such text round-trips only unedited.

let s:SEPARATOR = {'unix': "\n", 'dos': "\r\n", 'mac': "\r"}

" {lines, fileformat, eol} of `text`. CRLF only when every line break is one;
" anything mixed stays 'unix' and keeps its lone CRs in the lines.
function! ide_companion#text#split(text) abort
  let lf = count(a:text, "\n")
  let fileformat = lf > 0 && count(a:text, "\r\n") == lf ? 'dos' : 'unix'
  let lines = split(a:text, s:SEPARATOR[fileformat], 1)
  " split() leaves one empty string after a final separator: that is 'endofline'.
  let eol = len(lines) > 1 && lines[-1] ==# ''
  if eol
    call remove(lines, -1)
  endif
  return {'lines': lines, 'fileformat': fileformat, 'eol': eol}
endfunction

" Fills the current buffer with `text`.
function! ide_companion#text#fill(text) abort
  let content = ide_companion#text#split(a:text)
  let &l:fileformat = content.fileformat
  silent %delete _
  if content.eol && content.lines ==# ['']
    " "\n" is one empty line; a fresh buffer's single empty line is Vim's
    " "no lines" state, which :w writes as "". Appending and deleting leaves it.
    call append(0, '')
    silent $delete _
  else
    call setline(1, content.lines)
  endif
  let &l:endofline = content.eol
  let &l:fixendofline = content.eol
  setlocal nobinary
endfunction

" The text `:w` would write from buffer `buf` (which must be shown in window `winid`).
function! ide_companion#text#of_buffer(buf, winid) abort
  let lines = getbufline(a:buf, 1, '$')
  if lines ==# [''] && a:winid > 0
    " Vim's "--No lines in buffer--" state (after deleting the last line)
    " writes an empty file; wordcount() counts what :w would write.
    let empty = 0
    call win_execute(a:winid, 'let empty = wordcount().bytes == 0')
    if empty
      return ''
    endif
  endif
  let sep = get(s:SEPARATOR, getbufvar(a:buf, '&fileformat'), "\n")
  " As Vim writes: a final line break with 'eol', or with 'fixeol' unless 'binary'.
  let final = getbufvar(a:buf, '&endofline') || (getbufvar(a:buf, '&fixendofline') && !getbufvar(a:buf, '&binary'))
  return join(lines, sep) . (final ? sep : '')
endfunction
