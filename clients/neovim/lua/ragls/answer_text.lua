---@mod ragls.answer_text The text of an answer: its lines, source labels and footer (what a `[n]` in it cites:
--- |ragls.citation|).
---
--- Pure text from PROTOCOL values (docs/protocol.md): no windows, no server. Positions are LSP positions (0-based
--- lines, UTF-16 characters); labels show 1-based lines, as the CLI prints them. |ragls.ui| re-exports the functions
--- that lived there under their old names (`require("ragls.ui").source_line`, ...).

local one_line = require("ragls.text").one_line
local split_lines = require("ragls.text").split_lines
local longest_fitting = require("ragls.text").longest_fitting
local wrap = require("ragls.text").wrap

local M = {}

--- The "-" of a line range in the labels the answer float and the chat show (`source_entries`): U+2011
--- NON-BREAKING HYPHEN, which reads as "-" and is one cell wide under any 'ambiwidth'. With 'linebreak' Neovim wraps
--- a line after any 'breakat' character, "-" among them, so a label at a window's edge read "guide.md:12-" / "16";
--- 'breakat' is a global option (the user's, for every window) and Neovim never breaks at a multibyte character.
--- Text that leaves the editor — |Y|, the quickfix list, codecompanion's prompt, the pickers — keeps "-".
M.SHOWN_RANGE_DASH = "\226\128\145"

--- `path:start-end` (1-based, inclusive) for a Source (`path:line:column` for one line entered mid-way): the cited
--- lines (`focusRange`, else the chunk's `range`), as the CLI prints them and where opening the source puts the cursor.
--- A source an extractive answer quotes at places far apart lists them all (`focusRanges`): `path:4-10, 22-27`.
---@param source table  PROTOCOL Source
---@param dash? string  between a range's first and last line (default "-"; `SHOWN_RANGE_DASH` in wrapped windows)
---@return string
function M.source_location(source, dash)
  local path = one_line(source.path or source.uri or "?") -- a file may be named "we\nird.md"
  if type(source.focusRanges) == "table" and #source.focusRanges > 1 then
    return path .. ":" .. table.concat(vim.tbl_map(function(r) return M.range_lines(r, dash) end, source.focusRanges),
      ", ")
  end
  return path .. ":" .. M.range_lines(source.focusRange or source.range, dash)
end

--- What a source's line numbers need beside them, as the CLI prints it: " (page 3)" for a PDF's page, " (extracted
--- text)" when they count the text ragls extracted from a PDF, HTML or DOCX file or a web page (`extractedText`, newer
--- servers), not the file's lines; both as " (page 3, extracted text)"; else "".
---@param source table  PROTOCOL Source
---@return string
function M.where_note(source)
  local notes = {}
  if type(source.page) == "number" then
    table.insert(notes, ("page %d"):format(source.page))
  end
  if source.extractedText == true then
    table.insert(notes, "extracted text")
  end
  return #notes > 0 and (" (" .. table.concat(notes, ", ") .. ")") or ""
end

--- `start-end` (1-based, inclusive) of a PROTOCOL Range, `line` for one line, `line:column` for one line entered
--- mid-way (the column counts UTF-16 units, as the CLI prints it).
---@param range table  PROTOCOL Range
---@param dash? string  default "-"
---@return string
function M.range_lines(range, dash)
  local first = range.start.line + 1
  local last = range["end"].line + 1
  -- An end at character 0 means "up to the end of the previous line".
  if range["end"].character == 0 and last > first then
    last = last - 1
  end
  if last > first then
    return ("%d%s%d"):format(first, dash or "-", last)
  end
  -- One line, entered mid-way (a chunk of a line longer than a chunk): ":column", as the CLI prints it, so two
  -- chunks of that line are told apart.
  if (range.start.character or 0) > 0 then
    return ("%d:%d"):format(first, range.start.character + 1)
  end
  return ("%d"):format(first)
end

--- An answer's sources split into those its text cites (`citations`, in `sources` order) and the others it was
--- written from (listed apart: flask-docs' "load config from a TOML file" listed five sources under an answer citing
--- [1] only). Everything is cited when nothing says otherwise: an abstained answer (its closest matches, none
--- cited), a server that sends no `citations`, or an answer citing none of its sources. As VS Code's citedSources.
---@param result table  rag/ask result
---@return table[] cited
---@return table[] uncited
function M.cited_sources(result)
  local sources = result.sources or {}
  local ns = {}
  for _, citation in ipairs(result.citations or {}) do
    ns[citation.n] = true
  end
  local cited = vim.tbl_filter(function(s) return ns[s.n] == true end, sources)
  if result.abstained or #cited == 0 then
    return sources, {}
  end
  return cited, vim.tbl_filter(function(s) return not ns[s.n] end, sources)
end

--- The heading above the sources an answer was written from but does not cite (`cited_sources`).
M.UNCITED_HEADING = "### Also retrieved, not cited"

--- The "### Sources" lines of an answer (`rag/ask` result) as the answer float and the chat show them: one per source
--- (of `sources`, default all of the answer's), its range never split by a wrap (`SHOWN_RANGE_DASH`), marked when
--- the server found its citation unsupported by the source's text. Returns a list of { text = string, source = table }.
---@param result table  rag/ask result
---@param sources? table[]
function M.source_entries(result, sources)
  local unsupported = {}
  for _, citation in ipairs(result.citations or {}) do
    if citation.supported == false then
      unsupported[citation.n] = true
    end
  end
  local out = {}
  for _, source in ipairs(sources or result.sources or {}) do
    local line = M.source_line(source, M.SHOWN_RANGE_DASH)
    if unsupported[source.n] then
      line = line .. "  (citation not supported by this text)"
    end
    table.insert(out, { text = line, source = source })
  end
  return out
end

--- One line per source: `[n] path:start-end — title`, with `where_note` after the lines when they need one
--- (`[n] manual.pdf:12-14 (page 3, extracted text) — Setup`).
---@param source table  Source & { n }
---@param dash? string  of the range (`source_location`)
---@return string
function M.source_line(source, dash)
  local line = ("[%d] %s%s"):format(source.n, M.source_location(source, dash), M.where_note(source))
  if source.title and source.title ~= "" then
    line = line .. " — " .. one_line(source.title)
  end
  return line
end

--- The answer's text as the clients show it: `answer` without its label line when the server names one as saying
--- no more than the footer does (rag/ask `label`, newer servers: "*Extractive answer (no LLM configured): …*"), nor
--- the blank lines after it; else `answer`, trimmed.
---@param result table  rag/ask result
---@return string
function M.answer_body(result)
  local answer = vim.trim(result.answer or "")
  local label = type(result.label) == "string" and vim.trim(result.label) or ""
  if label ~= "" and answer:sub(1, #label) == label then
    return vim.trim(answer:sub(#label + 1))
  end
  return answer
end

--- A source line (`source_line`) broken into lines at most `width` columns wide for a window that wraps: never
--- inside its location but after a "/" of its path ("[1] docs/guide/" above "    x.md:12‑16 — Title", the later
--- lines hanging under the path), then at spaces (text.wrap). A window's 'linebreak' breaks after any 'breakat'
--- character, and one wider than its location read "…/x.md:" / "12-16" or "huge.md:3:" / "1996" ('breakat' is
--- global: the user's). A path part wider than the window stays whole (the window wraps it).
---@param line string
---@param width integer
---@return string[]
function M.wrap_source_line(line, width)
  if vim.fn.strdisplaywidth(line) <= width then
    return { line }
  end
  local lead = line:match("^%[%d+%] ") or ""
  local pad = (" "):rep(#lead)
  local location, tail = line:sub(#lead + 1):match("^(%S*)(.*)$")
  local out, cur, pos = {}, lead, 1
  while pos <= #location do
    local slash = location:find("/", pos, true)
    local part = location:sub(pos, slash or #location)
    pos = (slash or #location) + 1
    if cur ~= lead and cur ~= pad and vim.fn.strdisplaywidth(cur .. part) > width then
      table.insert(out, cur)
      cur = pad .. part
    else
      cur = cur .. part
    end
  end
  -- the rest at spaces, "[n]" kept with its path (a no-break space glues them while wrapping)
  local nbsp = "\194\160"
  local glue = lead ~= "" and vim.startswith(cur, lead)
  local text = glue and (lead:sub(1, -2) .. nbsp .. cur:sub(#lead + 1)) or cur
  for _, l in ipairs(wrap(text .. tail, width, #lead)) do
    table.insert(out, glue and #out == 0 and (l:gsub("^(%[%d+%])" .. nbsp, "%1 ")) or l)
  end
  return out
end

--- `lines` (`answer_lines`) laid out for a window `width` columns wide (`ragls.code_wrap.lay_out`): each source line
--- (a key of `by_line`) wrapped by `wrap_source_line`, each code line wider than `width` broken where code may break,
--- each citation of the prose kept with the word before it. Returns the lines, `by_line` for them, `moved[i]` (where
--- line i, its first part, is now) and `joins` (the parts of code lines after their first: `code_wrap.track`).
---@param lines string[]
---@param by_line table<integer, table>
---@param width integer
---@return string[] lines
---@return table<integer, table> by_line
---@return integer[] moved
---@return table<integer, integer> joins
function M.wrap_sources(lines, by_line, width)
  return require("ragls.code_wrap").lay_out(lines, by_line, width, M.wrap_source_line)
end

--- The answer as Markdown followed by the numbered sources it cites (`cited_sources`: those listed under "###
--- Sources"), as VS Code's "Copy" writes it: the answer, a blank line, "Sources:", a blank line, then one
--- `source_line` per source (none of that without sources). Ends with a newline.
---@param result table  rag/ask result
---@return string
function M.answer_markdown(result)
  local lines = { M.answer_body(result) }
  local cited = M.cited_sources(result)
  if #cited > 0 then
    vim.list_extend(lines, { "", "Sources:", "" })
    for _, source in ipairs(cited) do
      table.insert(lines, M.source_line(source))
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The heading above an answer's sources: "### Closest matches" when the answer abstained (its sources are the
--- passages that came closest, none cited), else "### Sources".
---@param result table  rag/ask result
---@return string
function M.sources_heading(result)
  return result.abstained and "### Closest matches" or "### Sources"
end

--- Lines of a finished answer: the answer (an abstained one says why itself), then the sources. A source the answer cites
--- but whose text does not support the sentence (`citations[].supported` false) is marked, as the CLI and VS Code do.
--- Returns the lines and a map from 1-based line number to source.
---@param question string
---@param result table  rag/ask result
---@return string[] lines
---@return table<integer, table> by_line
function M.answer_lines(question, result)
  local lines = { "## " .. question, "" }
  vim.list_extend(lines, M.error_lines(result, "`r` retries"))
  if result.ragls_note then
    vim.list_extend(lines, { "> " .. result.ragls_note, "" })
  end
  -- An abstained answer says so itself ("Not in your docs: ..."); its sources are the closest passages.
  vim.list_extend(lines, split_lines(M.answer_body(result)))
  local by_line = {}
  if result.sources and #result.sources > 0 then
    local cited, uncited = M.cited_sources(result)
    vim.list_extend(lines, { "", M.sources_heading(result), "" })
    for _, entry in ipairs(M.source_entries(result, cited)) do
      table.insert(lines, entry.text)
      by_line[#lines] = entry.source
    end
    if #uncited > 0 then
      vim.list_extend(lines, { "", M.UNCITED_HEADING, "" })
      for _, entry in ipairs(M.source_entries(result, uncited)) do
        table.insert(lines, entry.text)
        by_line[#lines] = entry.source
      end
    end
  end
  vim.list_extend(lines, { "", M.footer(result) })
  return lines, by_line
end

--- The lines above an answer whose LLM failed: the error text and what to do (`retry` names the retry key), then
--- the extractive answer follows. {} when the LLM did not fail.
---@param result table rag/ask result
---@param retry string e.g. "`r` retries"
---@return string[]
function M.error_lines(result, retry)
  if not (result.error and result.error.message) then
    return {}
  end
  local msg = result.error.message:gsub("%s*\n%s*", " ")
  local lines = {
    "> **The LLM failed:** " .. msg,
    "> " .. retry .. "; `:RagSetup` chooses another LLM (`:checkhealth ragls` shows the one in use)",
    "",
  }
  if type(result.label) == "string" then -- the server's label saying so is left out (`answer_body`)
    vim.list_extend(lines, { "_Below: the passages of your docs that match best (no LLM)._", "" })
  end
  return lines
end

--- "_model · cached · 1.2 s_": who wrote the answer. An LLM is named only when it wrote the answer: an abstention
--- and an extractive fallback after an LLM error never name one.
---@param result table rag/ask result
---@return string
function M.footer(result)
  local model = (result.model and result.model ~= "") and result.model or "extractive"
  local writer = result.abstained and "no answer (no LLM call)"
    or (result.error and "extractive (the LLM failed)")
    or (model == "extractive" and "extractive (no LLM)") or model
  local parts = { writer }
  if result.cached then
    table.insert(parts, "cached")
  end
  if result.elapsedMs then
    table.insert(parts, ("%.1f s"):format(result.elapsedMs / 1000))
  end
  return "_" .. table.concat(parts, " · ") .. "_"
end

--- Local file name of a Source, or nil when it is not a file (a URL, `%%`, a command's output).
--- Accepts `file://` URIs (as docs/protocol.md specifies) and, defensively, bare absolute paths.
---@param source table  PROTOCOL Source
---@return string|nil
function M.source_fname(source)
  local uri = source.uri or ""
  if uri:match("^file:") then
    return vim.uri_to_fname(uri)
  end
  if not uri:match("^%a[%w+.-]*:") and (uri:sub(1, 1) == "/" or uri:match("^%a:[/\\]")) then
    return uri
  end
  return nil
end

--- The buffer of the file `fname` (a full path), or nil when none has it. Exact: |bufexists()| compares file names
--- (as |bufadd()| does, which then returns that buffer), where |bufnr()| takes a file pattern and so settled for a
--- buffer whose name merely contains `fname` ("/ws/a.md" in "/ws/a.md.orig"'s or "/old/ws/a.md"'s) when `fname`
--- itself had none: that file's lines were read as the source's.
---@param fname string
---@return integer|nil
function M.file_buffer(fname)
  return vim.fn.bufexists(fname) == 1 and vim.fn.bufadd(fname) or nil
end

--- The lines of a chunk's `text` without its leading heading (already shown as the source's `title`, a heading
--- path "Guide > Section") and the blank lines around it. A heading line is the title or its last part, as a
--- Markdown `#` heading or a plain line, with a reST underline (`====`, `----`, …) below it.
---@param text string|nil
---@param title string|nil
---@return string[]
function M.body_lines(text, title)
  local lines = split_lines(text or "")
  local names = {}
  if title and title ~= "" then
    names[title] = true
    names[vim.trim(title:match("([^>]+)$") or title)] = true
  end
  local i = 1
  while lines[i] and vim.trim(lines[i]) == "" do
    i = i + 1
  end
  local first = lines[i] and vim.trim(lines[i]):gsub("^#+%s*", "") or nil
  if first and names[first] then
    i = i + 1
    local under = lines[i] and vim.trim(lines[i]) or ""
    if #under >= 2 and under == under:sub(1, 1):rep(#under) and under:sub(1, 1):match("[=%-~^\"'`#*+.:_]") then
      i = i + 1 -- reST underline
    end
  end
  while lines[i] and vim.trim(lines[i]) == "" do
    i = i + 1
  end
  return vim.list_slice(lines, i)
end

--- The key hint in the answer float's bottom border: the longest of these that fits `width` columns (the border's
--- corners and a margin left), else nil.
---@param width integer the float's width
---@param kind? "pending"|"no sources"|"failed" the keys that act then (nil: an answer with sources)
---@return string|nil
function M.answer_keys(width, kind)
  if kind == "pending" then -- no answer yet: nothing to open, quickfix or yank
    return longest_fitting({ " r ask again · q stop ", " q stop " }, width)
  end
  if kind == "failed" then -- nothing to open, quickfix or yank
    return longest_fitting({ " r ask again · q close ", " r retry · q close " }, width)
  end
  if kind == "no sources" then -- an answer that cites nothing (abstained): <CR> and <C-q> have nothing to open
    return longest_fitting({ " Y yank · r ask again · q close ", " Y yank · r retry · q close " }, width)
  end
  -- Narrower: <Tab> and <CR> (reading the sources) stay longest; the keys left out are behind g? (ragls.answer_float.show_keys).
  return longest_fitting({
    " <Tab> next [n] · <CR> open source · <C-q> sources to quickfix · Y yank · r ask again · q close ",
    " <Tab> next · <CR> open · <C-q> quickfix · Y yank · r ask again · q close ",
    " <Tab> next · <CR> open · <C-q> quickfix · g? keys · q close ",
    " <Tab> next · <CR> open · <C-q> qf · g? keys · q close ", -- 80 columns (the float's 0.8: 64)
    " <Tab> next · <CR> open · g? keys · q close ",
    " <CR> open · g? keys · q close ",
    " g? keys · q close ",
  }, width)
end

--- Every key of the answer float, one a line (what `g?` shows): the footer names only those it has room for.
M.ANSWER_KEYS = {
  "<Tab>/<S-Tab>  the cursor to the next / previous [n]",
  "<CR>           open the source of the [n] (or source line) under the cursor",
  "<C-q>          every source to the quickfix list",
  "Y              yank the answer with its sources",
  "r              ask the same question again",
  "q              close",
}

--- What a turn's question was searched as, under its heading, "" when as asked: the words a follow-up took from the
--- earlier questions ("_searched with words from earlier: register blueprint URL prefix_", rag/ask
--- `retrievalContext`: appended to the question they read as part of it), else the query an LLM rewrote it into
--- ("_searched: how to change the frobnicator timeout_", `retrievalQuery`).
---@param question string
---@param result? table rag/ask result
---@return string
function M.searched_line(question, result)
  local r = result or {}
  if type(r.retrievalContext) == "string" and r.retrievalContext ~= "" then
    return "_searched with words from earlier: " .. one_line(r.retrievalContext) .. "_"
  end
  if type(r.retrievalQuery) == "string" and r.retrievalQuery ~= question then
    return "_searched: " .. one_line(r.retrievalQuery) .. "_"
  end
  return ""
end

return M
