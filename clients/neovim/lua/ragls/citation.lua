---@mod ragls.citation What a `[n]` in an answer cites: the citation under the cursor, the answer item around it,
--- and the place in its source the item quotes, where <CR> on it opens (the answer float and :RagChat).
---
--- Positions are LSP positions (0-based lines, UTF-16 characters); lines and columns given to these functions are
--- 1-based. |ragls.ui| re-exports `citation_at` and `cited_source` under the names they had there.

local answer_text = require("ragls.answer_text")

local M = {}

--- The `[n]` under (or nearest to) the cursor on `line`, 1-based byte column `col`.
---@param line string
---@param col integer 1-based
---@return integer|nil n
function M.citation_at(line, col)
  local best, best_dist
  local init = 1
  while true do
    local s, e, n = line:find("%[(%d+)%]", init)
    if not s then
      break
    end
    local dist = (col < s and s - col) or (col > e and col - e) or 0
    if not best_dist or dist < best_dist then
      best, best_dist = tonumber(n), dist
    end
    init = e + 1
  end
  return best
end

--- The lines (first, last; 1-based) of the answer item holding line `lnum` of `lines`: a list item (`- `, `* `,
--- `1. `) with its continuation lines, else the paragraph; stops at blank lines and headings (a blank line or a
--- heading is an item of its own).
---@param lines string[]
---@param lnum integer
---@return integer first
---@return integer last
local function item_bounds(lines, lnum)
  local function item_start(l)
    return l:match("^%s*[-*]%s") or l:match("^%s*%d+[.)]%s")
  end
  local function stop(l)
    return l == nil or vim.trim(l) == "" or l:match("^#")
  end
  if stop(lines[lnum]) then
    return lnum, lnum
  end
  local first = lnum
  while not item_start(lines[first]) and not stop(lines[first - 1]) do
    first = first - 1
  end
  local last = lnum
  while not stop(lines[last + 1]) and not item_start(lines[last + 1]) do
    last = last + 1
  end
  return first, last
end

--- The answer item holding line `lnum` (1-based) of `lines` (`item_bounds`) as one line: the text a `[n]` on that
--- line cites.
---@param lines string[]
---@param lnum integer
---@return string
function M.item_text(lines, lnum)
  local first, last = item_bounds(lines, lnum)
  return table.concat(vim.list_slice(lines, first, last), " ")
end

--- The `[n]` that <CR> on line `lnum`, 1-based byte column `col`, of an answer follows: the one under (or nearest
--- to) the cursor on that line (`citation_at`); on a line without one (the first line of a wrapped sentence), the
--- first `[n]` of the item's following lines (a sentence ends with its citation), else the last of its earlier ones.
--- nil when the item cites nothing.
---@param lines string[]
---@param lnum integer
---@param col integer
---@return integer|nil n
function M.item_citation(lines, lnum, col)
  local n = M.citation_at(lines[lnum] or "", col)
  if n then
    return n
  end
  local first, last = item_bounds(lines, lnum)
  for l = lnum + 1, last do
    n = lines[l]:match("%[(%d+)%]")
    if n then
      return tonumber(n)
    end
  end
  for l = lnum - 1, first, -1 do
    n = lines[l]:match(".*%[(%d+)%]")
    if n then
      return tonumber(n)
    end
  end
  return nil
end

local function words(text)
  local set = {}
  for w in text:lower():gmatch("[%w_]+") do
    if #w >= 3 then
      set[w] = true
    end
  end
  return set
end

--- The place a `[n]` leads to. An extractive answer's source lists each passage it quotes (`quoteRanges`, from the
--- quoted sentence's first character): a `[n]` in `quote` (|ragls.citation.item_text|) opens at the quote whose
--- text shares the most words with it (ties: the one of fewer words, then the first), so the cursor lands on the sentence
--- quoted there, not on the first of the cited lines ("To roll back, run ..." starts mid-line). From an older
--- server, a source quoted at places far apart (`focusRanges`, labelled `path:4-10, 22-27`) opens at the place
--- sharing the most words. Any other source (or no word in common) is returned as it is.
---@param source table a rag/ask source
---@param quote string the answer's text around the `[n]`
---@param read_lines fun(first: integer, last: integer): string[] the source's lines first..last (1-based)
---@return table source  a copy with `focusRange` set to the chosen place, or `source`
function M.cited_place(source, quote, read_lines)
  local quotes = type(source.quoteRanges) == "table" and #source.quoteRanges > 1
  local places = quotes and source.quoteRanges or source.focusRanges
  if type(places) ~= "table" or #places < 2 then
    return source
  end
  local wanted = words(quote:gsub("%[%d+%]", ""))
  local best, best_score, best_size = nil, 0, 0
  for _, place in ipairs(places) do
    local e = place["end"]
    local last = (e.character == 0 and e.line > place.start.line) and e.line or e.line + 1
    local lines = read_lines(place.start.line + 1, last)
    local from = place.start.character or 0
    if from > 0 and lines[1] then -- from the quote's first character: the sentence before it is not part of it
      local ok, byte = pcall(vim.str_byteindex, lines[1], "utf-16", from, false)
      lines[1] = lines[1]:sub((ok and byte or 0) + 1)
    end
    local score, size = 0, 0
    for w in pairs(words(table.concat(lines, " "))) do
      score, size = score + (wanted[w] and 1 or 0), size + 1
    end
    -- a tie goes to the place with fewer words: a quote running on over the next one holds that one's words too
    if score > best_score or (score > 0 and score == best_score and size < best_size) then
      best, best_score, best_size = place, score, size
    end
  end
  if not best then
    return source
  end
  local place = vim.tbl_extend("force", source, { focusRange = best })
  place.quoteRanges = nil -- the chosen place is where the cursor goes (|ragls.jump.cursor_of|)
  return place
end

--- `source` for its `[n]` on line `lnum` of the answer in `buf`: at the quoted place the answer item there cites
--- (|ragls.citation.cited_place|), read from the source's loaded buffer, else its file; the places of a source whose lines
--- count extracted text (a PDF, HTML or DOCX file) are read from that text's buffer (|ragls.extracted|, made when
--- first needed), never from the raw file, whose lines are others.
---@param source table
---@param buf integer the answer float's or the chat's buffer
---@param lnum integer 1-based
---@return table
function M.cited_source(source, buf, lnum)
  local quote = M.item_text(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lnum)
  local bufnr = source.bufnr
  local fname = answer_text.source_fname(source)
  if not bufnr and fname and source.extractedText == true then
    return M.cited_place(source, quote, function(first, last)
      bufnr = bufnr or require("ragls.extracted").source_buffer(source) or false
      return bufnr and vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false) or {}
    end)
  end
  if not bufnr and fname then
    bufnr = answer_text.file_buffer(fname)
  end
  return M.cited_place(source, quote, function(first, last)
    if bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_is_loaded(bufnr) then
      return vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false)
    end
    local ok, lines = pcall(vim.fn.readfile, fname or "", "", last)
    return ok and vim.list_slice(lines, first, last) or {}
  end)
end

return M
