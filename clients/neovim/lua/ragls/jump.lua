---@mod ragls.jump Opening a source at its cited lines, with the transient highlight; where those lines are.
---
--- A source (PROTOCOL Source) is opened in a window with the cursor at its focus (|M.jump_to_source|) and its lines
--- highlighted with |hl-RaglsSource| for a moment (|M.highlight_range|). PROTOCOL positions are LSP positions (0-based
--- lines, UTF-16 characters); |M.source_start| and |M.source_end| give them as Neovim counts (1-based lines, byte
--- columns) for the quickfix list and the pickers.

local config = require("ragls.config")
local source_fname = require("ragls.answer_text").source_fname
local file_buffer = require("ragls.answer_text").file_buffer

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

--- Show buffer `bufnr` in `win` (default: the current window) with the cursor at `at` (an LSP position; default
--- `range`'s start) and `range`'s lines in view and highlighted.
---@param bufnr integer
---@param range table LSP range
---@param win? integer
---@param at? table LSP position
---@return boolean jumped
local function jump_to_buffer(bufnr, range, win, at)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    notify("ragls: the buffer of that selection is gone", vim.log.levels.WARN)
    return false
  end
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  else -- never into a float (a picker opened from the answer float): a window of the layout
    require("ragls.ui").leave_float()
  end
  vim.cmd("normal! m'") -- <C-o> comes back here
  vim.api.nvim_win_set_buf(0, bufnr)
  at = at or range.start
  local lnum = math.min(at.line + 1, vim.api.nvim_buf_line_count(bufnr))
  -- The range's character counts UTF-16 code units (a chunk starting mid-line in a huge one-line file).
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ""
  local ok, col = pcall(vim.str_byteindex, line, "utf-16", at.character or 0, false)
  vim.api.nvim_win_set_cursor(0, { lnum, ok and math.min(col, math.max(#line - 1, 0)) or 0 })
  vim.cmd("normal! zv")
  local count = vim.api.nvim_buf_line_count(bufnr)
  M.reveal(math.min(range.start.line + 1, count), math.min(M.last_line(range), count))
  M.highlight_range(bufnr, range)
  return true
end

--- Where the cursor goes in a source (an LSP position): the start of the passage that answers (`quoteRanges[1]`,
--- newer servers: the focus can open with neighbouring sentences joined to it, or the passage start mid-line after
--- another sentence) when it lies in the focus lines, else the start of the focus lines (else of `range`).
---@param source table PROTOCOL Source
---@return table position
function M.cursor_of(source)
  local focus = source.focusRange or source.range
  local quote = type(source.quoteRanges) == "table" and source.quoteRanges[1]
  local at = quote and quote.start
  if at and at.line >= focus.start.line and at.line + 1 <= M.last_line(focus) then
    return at
  end
  return focus.start
end

--- Scroll the current window so that lines `first`..`last` (1-based) are in view, centred when they were not
--- (as VS Code reveals a source): a source opened in a new buffer had its first line on the window's last row,
--- and the code the answer quoted under it out of sight. A range taller than the window starts at its top row.
---@param first integer
---@param last integer
function M.reveal(first, last)
  local view = vim.fn.winsaveview()
  local top, bottom = vim.fn.line("w0"), vim.fn.line("w$")
  if first >= top and last <= bottom then
    return
  end
  local height = vim.api.nvim_win_get_height(0)
  view.topline = math.max(1, first - math.max(0, math.floor((height - (last - first + 1)) / 2)))
  vim.fn.winrestview(view)
end

--- Namespace of the transient highlight of cited lines.
M.highlight_ns = vim.api.nvim_create_namespace("ragls-highlight")
vim.api.nvim_set_hl(0, "RaglsSource", { default = true, link = "Visual" })

--- Highlight `range` (LSP, UTF-16 characters) in `bufnr` with |hl-RaglsSource| for `ms` milliseconds (default
--- `highlight_ms`; 0 or less: until the buffer's next highlight). Returns the extmark. Whole lines, to the window's
--- edge, except where the range starts or ends inside a line: a cited sentence that starts after another one on its
--- line ("exceptions. These error handlers ...") is lit from its first character, and one that ends before the
--- next sentence up to its last; an end at character 0 ends with the line before.
---@param bufnr integer
---@param range table LSP range
---@param ms? integer
---@return integer|nil extmark
function M.highlight_range(bufnr, range, ms)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return nil
  end
  ms = ms or config.values.highlight_ms
  local count = vim.api.nvim_buf_line_count(bufnr)
  local first = math.min(range.start.line, count - 1)
  local last = range["end"].line
  if range["end"].character == 0 and last > first then
    last = last - 1 -- the end is the start of the next line
  end
  last = math.min(math.max(last, first), count - 1)
  --- byte column of UTF-16 `character` on line `row` (0-based), nil when it is at or past the line's end
  local function byte_col(row, character)
    local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
    local ok, col = pcall(vim.str_byteindex, line, "utf-16", character or 0, false)
    col = ok and col or #line
    return col < #line and col or nil
  end
  local start_col = first == range.start.line and (range.start.character or 0) > 0
    and byte_col(first, range.start.character) or 0
  local end_row, end_col = last + 1, 0
  if last == range["end"].line and (range["end"].character or 0) > 0 then
    local col = byte_col(last, range["end"].character)
    if col and (last > first or col > start_col) then
      end_row, end_col = last, col
    end
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.highlight_ns, 0, -1)
  local id = vim.api.nvim_buf_set_extmark(bufnr, M.highlight_ns, first, start_col, {
    end_row = end_row,
    end_col = end_col,
    hl_group = "RaglsSource",
    hl_eol = true,
    priority = 200,
    strict = false,
  })
  if ms and ms > 0 then
    vim.defer_fn(function()
      if vim.api.nvim_buf_is_valid(bufnr) then
        pcall(vim.api.nvim_buf_del_extmark, bufnr, M.highlight_ns, id)
      end
    end, ms)
  end
  return id
end

--- Open `source.uri` at `source.range` in `win` (default: the current window). A source with `bufnr` (a
--- selection of an unnamed buffer, see |ragls.remap_selection_sources|) opens that buffer instead, and one with
--- `extractedText` (a PDF, HTML or DOCX file) the buffer of its extracted text (|ragls.extracted|).
---@param source table  PROTOCOL Source, or a Source with `bufnr` and no `uri`
---@param win? integer
---@return boolean jumped
function M.jump_to_source(source, win)
  local range = source.focusRange or source.range
  local at = M.cursor_of(source)
  if source.bufnr then
    return jump_to_buffer(source.bufnr, range, win, at)
  end
  local fname = source_fname(source)
  if not fname then
    if (source.uri or ""):match("^https?://") and vim.ui.open then
      vim.ui.open(source.uri)
      return true
    end
    notify(("ragls: source %s is not a file"):format(source.path or source.uri), vim.log.levels.WARN)
    return false
  end
  if source.extractedText == true then -- its lines are those of the text ragls extracted (|ragls.extracted|)
    local extracted = require("ragls.extracted").buffer(fname)
    return extracted ~= nil and jump_to_buffer(extracted, range, win, at)
  end
  -- Not vim.lsp.util.show_document: its tagstack entry expands <cword>, which fails (E348) when the cursor is on a
  -- blank line, so a source could not be opened from there.
  -- Named relative to the current directory when it is below it, as `:edit guide/x.md` names it: the statusline,
  -- :ls and a buffer line showed every source opened by its absolute path, the project's folders first.
  local bufnr = vim.fn.bufadd(vim.fn.fnamemodify(fname, ":."))
  vim.bo[bufnr].buflisted = true
  return jump_to_buffer(bufnr, range, win, at)
end

--- The text of line `lnum` (1-based) of a source: from its buffer (`bufnr`, or the loaded buffer of `fname`: what
--- the user sees, unsaved edits included), else read from `fname`. nil when neither has that line.
---@param bufnr integer|nil
---@param fname string|nil
---@param lnum integer
---@return string|nil
local function source_line_text(bufnr, fname, lnum)
  if not bufnr and fname then
    bufnr = file_buffer(fname)
  end
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1]
  end
  if not fname then
    return nil
  end
  local ok, lines = pcall(vim.fn.readfile, fname, "", lnum)
  return ok and lines[lnum] or nil
end

--- The 1-based last line of a PROTOCOL Range (an end at character 0 ends on the line before), as the labels count.
---@param range table
---@return integer
function M.last_line(range)
  local e = range["end"]
  return (e.character == 0 and e.line > range.start.line) and e.line or e.line + 1
end

--- Where a source's cited lines start (`focusRange`, else `range`), as Neovim counts: the 1-based line and the
--- 0-based BYTE column. PROTOCOL positions count UTF-16 code units (the CLI's `path:line:column` label too), while
--- quickfix `col`, |nvim_win_set_cursor()| and the pickers' positions are bytes: "é😀 " is 4 units and 7 bytes.
--- Converted with |vim.str_byteindex()| on the line's text (its buffer, else its file); a source at column 0 needs
--- no text. `fname` defaults to the source's file (|ragls.answer_text.source_fname|).
---@param source table PROTOCOL Source (`bufnr` for a selection's source)
---@param fname? string
---@return integer lnum, integer col0
function M.source_start(source, fname)
  local start = (source.focusRange or source.range).start
  local lnum, character = start.line + 1, start.character or 0
  if character == 0 then
    return lnum, 0
  end
  local line = source_line_text(source.bufnr, fname or source_fname(source), lnum)
  if not line then
    return lnum, character
  end
  local ok, idx = pcall(vim.str_byteindex, line, "utf-16", character, false)
  return lnum, ok and idx or character
end

--- Where a source's cited lines end, as Neovim counts: the 1-based last line (as the labels count it) and that
--- line's length in BYTES, so a highlight up to it covers the whole line (0 when its text cannot be read).
---@param source table PROTOCOL Source
---@param fname? string defaults to the source's file
---@return integer lnum, integer col0
function M.source_end(source, fname)
  local lnum = M.last_line(source.focusRange or source.range)
  local line = source_line_text(source.bufnr, fname or source_fname(source), lnum)
  return lnum, line and #line or 0
end

return M
