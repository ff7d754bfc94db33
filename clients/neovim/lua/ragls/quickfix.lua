---@mod ragls.quickfix The quickfix lists: an answer's sources (`:RagAsk`'s <C-q>, the chat's) and rag/query results.
---
--- Pure rendering, as ragls.ui (with ragls.jump's source positions): LSP positions (0-based lines, UTF-16 characters)
--- in, 1-based lines and byte columns out.

local extracted = require("ragls.extracted")
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local one_line = require("ragls.text").one_line
local where_note = require("ragls.answer_text").where_note
local split_lines = require("ragls.text").split_lines

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

--- Columns a wrapped quickfix line may lose at the end of its first screen line: the list's window wraps at words
--- (`open_list`), so the text fitted to two screen lines gives up about a word's width.
local WORD_SLACK = 12

--- Open the quickfix list full-width and focused (`botright copen`), its long lines wrapped at words in that window
--- only (a window-local 'linebreak'): "…merge-banners.md|9| … — Click t" / "he banner's Keep mine button" read as
--- two words. Neovim's own quickfix window wraps at any character.
local function open_list()
  ui.leave_float() -- (asked from an answer float: the list opened under it, its entries in it)
  vim.cmd("botright copen")
  vim.api.nvim_set_option_value("linebreak", true, { scope = "local", win = vim.api.nvim_get_current_win() })
end

--- A quickfix item (no text yet) at where `source` starts (`jump.source_start`: its focus lines' first line and
--- column) through the last line of `range`: in buffer `bufnr` (an extracted-text buffer, |ragls.extracted|), else
--- file `fname`, else named by the source's path or URI (`module`: a file not on this machine).
---@param source table  PROTOCOL Source (with `bufnr` when it is shown in one)
---@param bufnr integer|nil
---@param fname string|nil
---@param range table|nil  PROTOCOL Range
---@return table item, integer col0  the item and its 0-based byte column
local function located_item(source, bufnr, fname, range)
  local lnum, col0 = jump.source_start(source, fname)
  return {
    bufnr = bufnr,
    filename = fname,
    module = not (fname or bufnr) and (source.path or source.uri) or nil,
    lnum = lnum,
    -- 1-based bytes; 0: no column (a source starting at a line's start: "col 1" on every entry is noise)
    col = col0 > 0 and col0 + 1 or 0,
    end_lnum = jump.last_line(range),
  }, col0
end

--- Every source of a finished answer to the quickfix list ("[n] title", at its cited lines, in answer order), titled
--- "RagAsk: <question>", and the list opened (`botright copen`, focused). Returns the number of items (0, with a
--- message, for an answer without sources). The item of a source whose lines count extracted text (a PDF, HTML or
--- DOCX file) is in its extracted-text buffer (|ragls.extracted|), as <CR> opens it, not in the file.
---@param question string
---@param result table|nil rag/ask result
---@return integer
function M.quickfix_sources(question, result)
  if not (result and result.sources and #result.sources > 0) then
    notify("ragls: this answer has no sources (yet)", vim.log.levels.INFO)
    return 0
  end
  local items = {}
  for _, source in ipairs(result.sources) do
    local bufnr = source.bufnr or extracted.source_buffer(source)
    local fname = not bufnr and ui.source_fname(source) or nil
    local title = (source.title and source.title ~= "") and (" " .. one_line(source.title)) or ""
    -- A source quoted at places far apart (`focusRanges`, labelled `path:4-10, 22-27`): an item per place.
    local places = (type(source.focusRanges) == "table" and #source.focusRanges > 1) and source.focusRanges
      or { source.focusRange or source.range }
    for _, range in ipairs(places) do
      local place = vim.tbl_extend("force", source, { focusRange = range, bufnr = bufnr })
      local item = located_item(place, bufnr, fname, range)
      item.text = ("[%d]%s%s"):format(source.n, where_note(source), title)
      table.insert(items, item)
    end
  end
  vim.fn.setqflist({}, " ", { title = "RagAsk: " .. (question or ""), items = items })
  open_list()
  return #items
end

--- The text of a chunk's focus lines (`focusRange`) as one line (whitespace collapsed, at most `max` characters),
--- when they start below the chunk's first line and lie within its text (the file's lines `range.start.line` ..
--- `range.end.line`); else nil (the chunk's first lines say it then).
---@param chunk table  PROTOCOL Chunk
---@param max integer|nil  default 200
---@return string|nil
function M.focus_text(chunk, max)
  local source = chunk.source
  local focus = source.focusRange
  if not focus or focus.start.line <= source.range.start.line then
    return nil
  end
  local lines = split_lines(chunk.text or "")
  local a = focus.start.line - source.range.start.line + 1
  local b = focus["end"].line - source.range.start.line + 1
  if b < a or b > #lines then
    return nil
  end
  local flat = vim.trim((table.concat(vim.list_slice(lines, a, b), " "):gsub("%s+", " ")))
  if flat == "" then
    return nil
  end
  return vim.fn.strcharpart(flat, 0, max or 200)
end

local function end_lnum_of(source)
  return jump.last_line(source.focusRange or source.range)
end

local cut_to = require("ragls.text").cut_to

--- The heading path `title` ("Guide > Syncing > Conflicts > Merge banners") in at most `room` columns: its last
--- headings, as many as fit (the section's own name is the one that tells results apart), the last one cut with "…"
--- when even it is wider.
local function fit_title(title, room)
  if vim.fn.strdisplaywidth(title) <= room then
    return title
  end
  local parts = vim.split(title, " > ", { plain = true })
  local kept = parts[#parts]
  for i = #parts - 1, 1, -1 do
    local longer = parts[i] .. " > " .. kept
    if vim.fn.strdisplaywidth(longer) > room then
      break
    end
    kept = longer
  end
  return cut_to(kept, room)
end

--- The quickfix text "title — preview" in the columns a quickfix line has left after "path|4-10 col 3| " in a
--- full-width quickfix window (`botright copen`), so every result is one screen line (Neovim wraps quickfix lines:
--- a 200-character preview took three lines, and the fifth result fell below the window); two when a long path
--- leaves less than 40 columns on the first (31 showed "Dismissing a… — Click the banner'…"). The preview is what
--- tells a hit's worth, so a long heading path gives way first: it keeps at most what the preview leaves, and no
--- less than 2/5 of the room ("Blueprints > Static files — Blu…" showed three letters of the preview).
---@param title string|nil  the section's heading path, one line
---@param preview string|nil  the focus lines as one line
---@param path string
---@param lnum integer  1-based
---@param end_lnum integer
---@param col0 integer  0-based byte column, 0: none shown
---@return string
local function fit_quickfix_text(title, preview, path, lnum, end_lnum, col0)
  local where = end_lnum > lnum and ("%d-%d"):format(lnum, end_lnum) or tostring(lnum)
  if col0 > 0 then
    where = where .. (" col %d"):format(col0 + 1)
  end
  local prefix = vim.fn.fnamemodify(path, ":~:.") .. "|" .. where .. "| "
  local room = vim.o.columns - vim.fn.strdisplaywidth(prefix) - 1
  if room < 40 then -- a long path: the text has a second screen line (a title and a few words fitted on one)
    room = room + vim.o.columns - WORD_SLACK -- (the first screen line breaks at a word: `open_list`)
  end
  if not (title and title ~= "") then
    return cut_to(preview or "", room)
  end
  if not (preview and preview ~= "") then
    return fit_title(title, room)
  end
  local sep = " — "
  local title_room = math.max(room - vim.fn.strdisplaywidth(preview .. sep), math.floor(room * 2 / 5))
  local shown = fit_title(title, title_room)
  return shown .. sep .. cut_to(preview, room - vim.fn.strdisplaywidth(shown .. sep))
end

--- `path:line:col: title — text` quickfix items for rag/query chunks: the chunk's `preview` (the server's reading
--- of the focus lines), else the text of the focus lines (the line the item names) when known, else the chunk's
--- first line. A chunk of extracted text (a PDF, HTML or DOCX file) is an item in its extracted-text buffer
--- (|ragls.extracted|), whose lines it counts.
---@param chunks table[]  PROTOCOL Chunk[]
---@return table[] items  for setqflist
function M.quickfix_items(chunks)
  local items = {}
  for _, chunk in ipairs(chunks) do
    local bufnr = extracted.source_buffer(chunk.source)
    local source = bufnr and vim.tbl_extend("force", chunk.source, { bufnr = bufnr }) or chunk.source
    local fname = not bufnr and ui.source_fname(source) or nil
    -- The server's preview (PROTOCOL Chunk.preview: the focus lines read as text, not markup); older servers send
    -- none: the focus lines, else the chunk's first line below its heading, as written.
    local preview = type(chunk.preview) == "string" and chunk.preview ~= "" and chunk.preview or nil
    local first = preview or M.focus_text(chunk) or ui.body_lines(chunk.text, source.title)[1]
    first = first and vim.fn.strcharpart(vim.trim(first), 0, 200) -- a minified file's one line is megabytes
    local title = source.title and source.title ~= "" and one_line(source.title) or nil
    local item, col0 = located_item(source, bufnr, fname, source.focusRange or source.range)
    item.text = fit_quickfix_text(title, first and one_line(first),
      bufnr and vim.api.nvim_buf_get_name(bufnr) or fname or source.path or source.uri or "", item.lnum,
      end_lnum_of(source), col0)
    item.user_data = { score = chunk.score, id = chunk.id }
    table.insert(items, item)
  end
  return items
end

--- Fill the quickfix list with rag/query results and open it.
---@param query string
---@param result table rag/query result
function M.show_query(query, result)
  local items = M.quickfix_items(result.chunks or {})
  vim.fn.setqflist({}, " ", { title = "RagQuery: " .. query, items = items })
  if #items == 0 and require("ragls.progress").indexing() then -- the first index has not reached those files yet
    notify(("ragls: nothing found for %q yet: the index is still being built"):format(query),
      vim.log.levels.WARN)
  elseif #items == 0 or result.abstained then
    notify(
      ("ragls: nothing relevant found for %q%s"):format(query, #items > 0 and " (closest matches listed)" or ""),
      vim.log.levels.WARN)
  end
  if #items > 0 then
    open_list()
  end
end

return M
