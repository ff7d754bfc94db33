---@mod ragls.ui Floats, source jumps and highlights, the answer float; quickfix lists in `ragls.quickfix`.
--- (The text of an answer and its source labels lives in `ragls.answer_text`, re-exported here.)
---
--- Pure rendering: this module never talks to the server. Positions from the server are LSP positions
--- (0-based lines, UTF-16 characters); everything shown to the user is 1-based.

local config = require("ragls.config")
local one_line = require("ragls.text").one_line
local split_lines = require("ragls.text").split_lines

local M = {}

local ns = vim.api.nvim_create_namespace("ragls")

-- bufnr -> { by_line = {lnum -> source}, by_n = {n -> source}, origin_win = winid }
local answer_state = {}

-- The text of answers and their source labels lives in ragls.answer_text; these names stay for callers of ragls.ui.
local answer_text = require("ragls.answer_text")
M.source_location = answer_text.source_location
M.source_entries = answer_text.source_entries
M.source_line = answer_text.source_line
M.sources_heading = answer_text.sources_heading
M.answer_lines = answer_text.answer_lines
M.error_lines = answer_text.error_lines
M.footer = answer_text.footer
M.answer_keys = answer_text.answer_keys
M.ANSWER_KEYS = answer_text.ANSWER_KEYS
M.body_lines = answer_text.body_lines
M.citation_at = answer_text.citation_at
M.source_fname = answer_text.source_fname
M.cited_source = answer_text.cited_source

--- Float size from the `float.width`/`float.height` option: a fraction (<= 1) of `total`, at least `min`; a
--- larger number is a count of columns/lines. The caller clamps it to the editor.
---@param value number
---@param total integer editor columns or lines
---@param min integer
---@return integer
local function size(value, total, min)
  if value <= 1 then
    return math.max(min, math.floor(total * value))
  end
  return value
end

--- Wrap an answer's markdown in `win` for reading: at word boundaries, a list item's wrapped lines hanging under
--- its text (not at column 0), a quote's (an LLM error) under its "> ", a source's under its "[n] ", concealed
--- markup hidden. `buf`'s 'formatlistpat' is set to markdown's list items and quotes and the sources' numbers ("- ",
--- "* ", "1. ", "> ", "[1] "), so this holds without the markdown ftplugin too.
---@param win integer
---@param buf integer
function M.prose_window(win, buf)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  vim.wo[win].breakindentopt = "list:-1"
  vim.wo[win].conceallevel = 2
  vim.wo[win].concealcursor = "n"
  vim.bo[buf].formatlistpat = [[^\s*\d\+[.)]\s\+\|^\s*[-*+]\s\+\|^\s*>\s*\|^\[\d\+\]\s\+]]
end

M.fence_ns = vim.api.nvim_create_namespace("ragls_fences")

--- Hide the ``` / ~~~ fence lines of the code blocks in an answer buffer (|conceal_lines| from Neovim 0.11; before,
--- their text is concealed and the line stays blank), so code reads as code without a markdown treesitter set-up:
--- Vim's markdown syntax (a `--clean` Neovim) showed the fences and the info string ("```python") raw. The code
--- between them keeps the syntax' highlight, the buffer's text is unchanged (|Y| yanks the fences), and a window
--- with 'conceallevel' 0 shows them. And keep every `[n]` whole: with a user's treesitter for markdown, the
--- markdown_inline queries read "[1]" as a shortcut link and conceal its brackets, so citations and source lines
--- read "1" (each bracket gets a conceal mark of higher priority replacing it by itself: a no-op without one).
--- Without such a treesitter the "## " of the question and of "### Sources" is hidden too (the heading keeps its
--- colour), also on the cursor's line ('concealcursor' n in the float: it is for reading).
--- Call it after each change of the buffer's lines.
---@param buf integer
function M.conceal_fences(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, M.fence_ns, 0, -1)
  -- (a user's treesitter for markdown, and the plugins that draw on it, show headings their own way)
  local highlighted = vim.treesitter.highlighter.active[buf] ~= nil
  local fence = nil -- the open block's fence ("```", "~~~~", ...): only the same or a longer one closes it
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local marks = line:match("^%s*(```+)") or line:match("^%s*(~~~+)")
    local closes = fence and marks and marks:sub(1, 1) == fence:sub(1, 1) and #marks >= #fence
      and vim.trim(line) == marks
    if closes or (not fence and marks) then
      fence = not closes and marks or nil
      if not pcall(vim.api.nvim_buf_set_extmark, buf, M.fence_ns, i - 1, 0, { conceal_lines = "" }) then
        vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, 0, { end_col = #line, conceal = "" })
      end
    elseif not fence then
      local marker = not highlighted and line:match("^#+ ")
      if marker then -- "## How do I …?", "### Sources": the heading's colour says it is one
        vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, 0, { end_col = #marker, conceal = "" })
      end
      for first, after in line:gmatch("()%[%d+%]()") do
        for _, col in ipairs({ first - 1, after - 2 }) do
          vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, col,
            { end_col = col + 1, conceal = line:sub(col + 1, col + 1), priority = 300 })
        end
      end
    end
  end
end

--- Shrink the float `win` to its text (wrapped lines counted) when that is shorter, kept centred: a short status or
--- answer left most of a 70%-high float empty. Never grows it; at least `min` rows (default 1).
---@param win integer
---@param min? integer
function M.fit_float_height(win, min)
  if not (vim.api.nvim_win_text_height and vim.api.nvim_win_is_valid(win)) then
    return
  end
  local rows = math.max(vim.api.nvim_win_text_height(win, {}).all, min or 1)
  if rows < vim.api.nvim_win_get_height(win) then
    local cfg = vim.api.nvim_win_get_config(win)
    cfg.height = rows
    cfg.row = math.floor((vim.o.lines - rows) / 2) - 1
    vim.api.nvim_win_set_config(win, cfg)
  end
end

--- Open a scratch float; returns bufnr, winid. `q` closes it.
---@param lines string[]
---@param opts { title?: string, filetype?: string, enter?: boolean }
---@return integer bufnr
---@return integer winid
function M.open_float(lines, opts)
  local fcfg = config.values.float
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = opts.filetype or "markdown"
  local width = size(fcfg.width or 0.8, vim.o.columns, 40)
  local height = size(fcfg.height or 0.7, vim.o.lines, 5)
  width = math.min(width, vim.o.columns)
  height = math.min(height, vim.o.lines - 2)
  local win = vim.api.nvim_open_win(buf, opts.enter ~= false, {
    relative = "editor",
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = "minimal",
    border = fcfg.border or "rounded",
    title = opts.title and (" " .. opts.title .. " ") or nil,
    title_pos = opts.title and "center" or nil,
  })
  M.prose_window(win, buf)
  vim.keymap.set("n", "q", function()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end, { buffer = buf, nowait = true, desc = "ragls: close" })
  return buf, win
end

---@param buf integer
---@param lines string[]
---@param start? integer 0-based first line to replace (default 0)
local function set_lines(buf, lines, start)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, start or 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  M.conceal_fences(buf)
end

--- Show buffer `bufnr` in `win` (default: the current window) with the cursor at `range`'s start.
---@param bufnr integer
---@param range table LSP range
---@param win? integer
---@return boolean jumped
local function jump_to_buffer(bufnr, range, win)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    vim.notify("ragls: the buffer of that selection is gone", vim.log.levels.WARN, { title = "ragls" })
    return false
  end
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
  vim.cmd("normal! m'") -- <C-o> comes back here
  vim.api.nvim_win_set_buf(0, bufnr)
  local lnum = math.min(range.start.line + 1, vim.api.nvim_buf_line_count(bufnr))
  -- The range's character counts UTF-16 code units (a chunk starting mid-line in a huge one-line file).
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ""
  local ok, col = pcall(vim.str_byteindex, line, "utf-16", range.start.character or 0, false)
  vim.api.nvim_win_set_cursor(0, { lnum, ok and math.min(col, math.max(#line - 1, 0)) or 0 })
  vim.cmd("normal! zv")
  M.highlight_range(bufnr, range)
  return true
end

--- Namespace of the transient highlight of cited lines.
M.highlight_ns = vim.api.nvim_create_namespace("ragls-highlight")
vim.api.nvim_set_hl(0, "RaglsSource", { default = true, link = "Visual" })

--- Highlight the lines of `range` (LSP, end exclusive at character 0) in `bufnr` with |hl-RaglsSource| for
--- `ms` milliseconds (default `highlight_ms`; 0 or less: until the buffer's next highlight). Returns the extmark.
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
  vim.api.nvim_buf_clear_namespace(bufnr, M.highlight_ns, 0, -1)
  local id = vim.api.nvim_buf_set_extmark(bufnr, M.highlight_ns, first, 0, {
    end_row = last + 1,
    end_col = 0,
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
--- selection of an unnamed buffer, see |ragls.remap_selection_sources|) opens that buffer instead.
---@param source table  PROTOCOL Source, or a Source with `bufnr` and no `uri`
---@param win? integer
---@return boolean jumped
function M.jump_to_source(source, win)
  local range = source.focusRange or source.range
  if source.bufnr then
    return jump_to_buffer(source.bufnr, range, win)
  end
  local fname = M.source_fname(source)
  if not fname then
    if (source.uri or ""):match("^https?://") and vim.ui.open then
      vim.ui.open(source.uri)
      return true
    end
    vim.notify(("ragls: source %s is not a file"):format(source.path or source.uri), vim.log.levels.WARN,
      { title = "ragls" })
    return false
  end
  -- Not vim.lsp.util.show_document: its tagstack entry expands <cword>, which fails (E348) when the cursor is on a
  -- blank line, so a source could not be opened from there.
  local bufnr = vim.fn.bufadd(fname)
  vim.bo[bufnr].buflisted = true
  return jump_to_buffer(bufnr, range, win)
end

--- `<CR>` in an answer float: jump to the source on this line, or to the `[n]` under the cursor.
---@param buf integer
function M.follow(buf)
  local state = answer_state[buf]
  if not state then
    return
  end
  local lnum, col0 = unpack(vim.api.nvim_win_get_cursor(0))
  local source = state.by_line[lnum]
  if not source then
    local n = answer_text.item_citation(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lnum, col0 + 1)
    source = n and state.by_n[n]
    if n and not source then
      vim.notify(("ragls: the answer has no source [%d]"):format(n), vim.log.levels.WARN, { title = "ragls" })
      return
    end
    source = source and M.cited_source(source, buf, lnum)
  end
  if not source then
    return
  end
  local float = vim.api.nvim_get_current_win()
  local jumpback = require("ragls.jumpback") -- <C-o> back at the origin reopens this answer
  jumpback.arm(state.origin_win, state.question, state.result, lnum)
  if not M.jump_to_source(source, state.origin_win) then
    jumpback.disarm()
    return
  end
  jumpback.jumped()
  if vim.api.nvim_win_is_valid(float) then
    vim.api.nvim_win_close(float, true)
  end
end

--- The text of line `lnum` (1-based) of a source: from its buffer (`bufnr`, or the loaded buffer of `fname`: what
--- the user sees, unsaved edits included), else read from `fname`. nil when neither has that line.
---@param bufnr integer|nil
---@param fname string|nil
---@param lnum integer
---@return string|nil
local function source_line_text(bufnr, fname, lnum)
  if not bufnr and fname then
    local b = vim.fn.bufnr(fname)
    bufnr = b > 0 and b or nil
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
--- no text. `fname` defaults to the source's file (|ragls.ui.source_fname|).
---@param source table PROTOCOL Source (`bufnr` for a selection's source)
---@param fname? string
---@return integer lnum, integer col0
function M.source_start(source, fname)
  local start = (source.focusRange or source.range).start
  local lnum, character = start.line + 1, start.character or 0
  if character == 0 then
    return lnum, 0
  end
  local line = source_line_text(source.bufnr, fname or M.source_fname(source), lnum)
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
  local line = source_line_text(source.bufnr, fname or M.source_fname(source), lnum)
  return lnum, line and #line or 0
end

--- `g?` in an answer float: list its keys (a notification: it stays readable beside the float).
function M.show_keys()
  local text = "ragls answer keys:\n" .. table.concat(answer_text.ANSWER_KEYS, "\n")
  vim.notify(text, vim.log.levels.INFO, { title = "ragls" })
end

--- `<C-q>` in an answer float: its sources to the quickfix list (`quickfix_sources`), the float closed first and
--- the window the question came from made current, so the list's entries open there. Returns the item count.
---@param buf integer the answer float's buffer
---@return integer
function M.sources_to_quickfix(buf)
  local state = answer_state[buf]
  if not (state and state.result and state.result.sources and #state.result.sources > 0) then
    return M.quickfix_sources("", nil)
  end
  local float = vim.fn.bufwinid(buf)
  if float ~= -1 then
    vim.api.nvim_win_close(float, true)
  end
  if state.origin_win and vim.api.nvim_win_is_valid(state.origin_win) then
    vim.api.nvim_set_current_win(state.origin_win)
  end
  return M.quickfix_sources(state.question, state.result)
end

--- `<Tab>` / `<S-Tab>` in an answer float: the cursor to the next / previous `[n]` in the current window (a
--- citation in the answer or the number of a source line), wrapping around the end. Returns its line (1-based), 0
--- when the answer has none.
---@param flags "w"|"bw" |search()| flags: "w" forward, "bw" backward
---@return integer
function M.next_citation(flags)
  return vim.fn.search("\\[\\d\\+\\]", flags)
end

--- `Y` in an answer float: the finished answer with its numbered sources (`answer_text.answer_markdown`) into
--- `register` (|v:register|: the unnamed one, `+` with 'clipboard' unnamedplus, or the one typed before Y, as a
--- yank does), linewise. Returns the text, nil (and says so) while the answer is not finished.
---@param buf integer the answer float's buffer
---@param register? string default `"`
---@return string|nil
function M.yank_answer(buf, register)
  local state = answer_state[buf]
  if not (state and state.result) then
    vim.notify("ragls: nothing to yank until the answer is finished", vim.log.levels.WARN)
    return nil
  end
  local text = answer_text.answer_markdown(state.result)
  vim.fn.setreg(register or '"', text, "l")
  local n = #(state.result.sources or {})
  vim.notify(("ragls: answer yanked with %d source%s"):format(n, n == 1 and "" or "s"), vim.log.levels.INFO)
  return text
end

--- How often the answer float's placeholder re-reads the indexing progress (ms).
M.PENDING_REFRESH_MS = 500

--- The placeholder under the question until the answer's first words: "_…_"; while the server starts "_… starting
--- the server: 3 s (Python loads ragls; q stops waiting)_"; while it indexes (work-done
--- progress, |ragls-progress|) "_… the index is being built for meaning search 120/333 sections (36%)_", so a first answer
--- that waits for the index does not look hung; after `PENDING_SECONDS_AFTER_MS` without either, the seconds waited
--- ("_… waiting for the answer: 7 s (q stops it)_": a slow or unreachable LLM takes a while to answer or fail).
---@param elapsed_ms? integer since the question was sent
---@return string
function M.pending_line(elapsed_ms)
  if require("ragls.server").starting_since() then -- the question waits for the server to answer `initialize`
    local waited = elapsed_ms and elapsed_ms >= 1000 and (": %d s"):format(math.floor(elapsed_ms / 1000)) or ""
    return ("_… starting the server%s (Python loads ragls; q stops waiting)_"):format(waited)
  end
  local progress = require("ragls.progress")
  for _, p in pairs(progress.active) do
    -- the server's message says what the index is being built for ("for meaning search 120/333 sections", "from
    -- scratch") or a count ("12/80 files"): "being built: for meaning search" read as two sentences
    local text = one_line((progress.text(p):gsub("^ragls:%s*", ""):gsub("^indexing%s+", "")))
    local joined = (text:match("^for ") or text:match("^from ")) and " " or ": "
    return ("_… the index is being built%s%s_"):format(joined, text)
  end
  if elapsed_ms and elapsed_ms >= M.PENDING_SECONDS_AFTER_MS then
    return ("_… waiting for the answer: %d s (q stops it)_"):format(math.floor(elapsed_ms / 1000))
  end
  return "_…_"
end

--- How long the placeholder stays a bare "…" before it counts the seconds (ms).
M.PENDING_SECONDS_AFTER_MS = 2000

---@class ragls.AnswerView
---@field buf integer
---@field win integer
---@field question string
---@field text string
---@field done boolean
local AnswerView = {}
AnswerView.__index = AnswerView

--- Open the answer float for `question`; it fills as `append` is called and is completed by `finish`.
---@param question string
---@return ragls.AnswerView
function M.answer_view(question)
  local origin = vim.api.nvim_get_current_win()
  local buf, win = M.open_float({ "## " .. question, "", M.pending_line() }, { title = "ragls" })
  M.conceal_fences(buf) -- the question's "## " hidden from the start (it showed until the first refresh)
  local view = setmetatable({ buf = buf, win = win, question = question, text = "", done = false,
    started = vim.uv.now() }, AnswerView)
  -- Until the first words come, the placeholder says what the index is doing (a first index takes a while).
  view.pending_timer = vim.uv.new_timer()
  view.pending_timer:start(M.PENDING_REFRESH_MS, M.PENDING_REFRESH_MS, vim.schedule_wrap(function()
    if view.done or view.text ~= "" or not view:valid() then
      view:stop_pending()
      return
    end
    set_lines(buf, { M.pending_line(vim.uv.now() - view.started) }, 2)
  end))
  answer_state[buf] = { by_line = {}, by_n = {}, origin_win = origin }
  vim.keymap.set("n", "<CR>", function()
    M.follow(buf)
  end, { buffer = buf, desc = "ragls: open source" })
  vim.keymap.set("n", "r", function()
    if view.on_retry then
      view.on_retry()
    end
  end, { buffer = buf, nowait = true, desc = "ragls: ask again" })
  -- <C-q>: telescope's and fzf-lua's "send to quickfix", here every source of the answer (VS Code: Open all sources)
  vim.keymap.set("n", "<C-q>", function()
    M.sources_to_quickfix(buf)
  end, { buffer = buf, nowait = true, desc = "ragls: sources to the quickfix list" })
  -- <Tab> / <S-Tab>: the cursor to the next / previous `[n]` (a citation or a source line), for <CR>
  for lhs, flags in pairs({ ["<Tab>"] = "w", ["<S-Tab>"] = "bw" }) do
    vim.keymap.set("n", lhs, function()
      M.next_citation(flags)
    end, { buffer = buf, nowait = true, desc = "ragls: cursor to the " .. (flags == "w" and "next" or "previous")
      .. " citation or source" })
  end
  vim.keymap.set("n", "g?", M.show_keys, { buffer = buf, nowait = true, desc = "ragls: list the answer's keys" })
  -- Y: the answer with its sources into a register (VS Code: Copy), to `p` into notes, a commit or an issue
  vim.keymap.set("n", "Y", function()
    M.yank_answer(buf, vim.v.register)
  end, { buffer = buf, nowait = true, desc = "ragls: yank the answer with its sources" })
  view:show_keys("pending")
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      answer_state[buf] = nil
      if not view.done and view.on_abort then
        view.on_abort()
      end
    end,
  })
  return view
end

--- The keys, where a user looks for them (VS Code shows buttons), as the float's footer (it needs a border):
--- those that do something for this answer (`kind`: "pending" until it is finished, nil with sources, "no
--- sources", "failed").
---@param kind? "pending"|"no sources"|"failed"
function AnswerView:show_keys(kind)
  local border = config.values.float and config.values.float.border
  if border == "none" or border == "" or not vim.api.nvim_win_is_valid(self.win) then
    return
  end
  local hint = M.answer_keys(vim.api.nvim_win_get_width(self.win), kind)
  if hint then
    pcall(vim.api.nvim_win_set_config, self.win, { footer = hint, footer_pos = "right" })
  end
end

--- Stop refreshing the placeholder (the answer started, finished or failed, or the float closed).
function AnswerView:stop_pending()
  local timer = self.pending_timer
  self.pending_timer = nil
  if timer and not timer:is_closing() then
    timer:stop()
    timer:close()
  end
end

--- Is the float still open?
function AnswerView:valid()
  return vim.api.nvim_buf_is_valid(self.buf)
end

--- Append a streamed piece of the answer.
---@param delta string
function AnswerView:append(delta)
  self:stop_pending()
  if self.done or not self:valid() then
    return
  end
  self.text = self.text .. delta
  set_lines(self.buf, split_lines(self.text), 2)
end

--- Replace the streamed text with the final answer and its sources.
---@param result table rag/ask result
function AnswerView:finish(result)
  self.done = true
  self:stop_pending()
  if not self:valid() then
    return
  end
  local lines, by_line = M.answer_lines(self.question, result)
  set_lines(self.buf, lines, 0)
  local by_n = {}
  for _, source in ipairs(result.sources or {}) do
    by_n[source.n] = source
  end
  answer_state[self.buf].by_line = by_line
  answer_state[self.buf].by_n = by_n
  answer_state[self.buf].question, answer_state[self.buf].result = self.question, result
  vim.api.nvim_buf_clear_namespace(self.buf, ns, 0, -1)
  for lnum in pairs(by_line) do
    vim.api.nvim_buf_set_extmark(self.buf, ns, lnum - 1, 0, { line_hl_group = "Directory" })
  end
  vim.b[self.buf].ragls_result = result
  M.last = { question = self.question, result = result }
  if self.win and vim.api.nvim_win_is_valid(self.win) and vim.api.nvim_win_get_buf(self.win) == self.buf then
    M.fit_float_height(self.win, 5) -- the answer is complete: no empty rows under a short one
    self:show_keys(#(result.sources or {}) == 0 and "no sources" or nil)
  end
end

--- The last finished answer ({ question, result }), for |:RagLast|.
---@type { question: string, result: table }|nil
M.last = nil

--- Reopen the last answer in its float (|:RagLast|). Returns the view, or nil when there was none.
---@return ragls.AnswerView|nil
function M.show_last()
  if not M.last then
    vim.notify("ragls: no answer yet in this session; ask one with :RagAsk", vim.log.levels.INFO, { title = "ragls" })
    return nil
  end
  return M.reopen_answer(M.last.question, M.last.result)
end

--- Open a finished answer again in its float (|:RagLast|, `<C-o>` back from a followed source).
---@param question string
---@param result table rag/ask result
---@return ragls.AnswerView
function M.reopen_answer(question, result)
  local view = M.answer_view(question)
  view:finish(result)
  return view
end

--- Show a failed request in the float.
---@param message string
function AnswerView:fail(message)
  self.done = true
  self:stop_pending()
  if self:valid() then
    -- (the float is titled ragls: the message's own "ragls: " would say it twice)
    set_lines(self.buf, { "## " .. self.question, "", "**Error:** " .. message:gsub("^ragls:%s*", ""), "",
      "_`r` retries · `q` closes_" }, 0)
    self:show_keys("failed")
  end
end

-- The quickfix lists (an answer's sources, rag/query results) live in ragls.quickfix; these names stay for callers of
-- ragls.ui (required on first use: ragls.quickfix itself uses ragls.ui's source positions).
for _, name in ipairs({ "quickfix_sources", "focus_text", "quickfix_items", "show_query" }) do
  M[name] = function(...)
    return require("ragls.quickfix")[name](...)
  end
end

-- :RagStatus's layout lives in ragls.status_view; these names stay for callers of ragls.ui.
local status_view = require("ragls.status_view")
M.parse_iso = status_view.parse_iso
M.human_time = status_view.human_time
M.status_lines = status_view.status_lines
M.show_status = status_view.show_status

local commit_ui = require("ragls.commit_ui")
M.insert_commit_message = commit_ui.insert_commit_message
M.show_commit_scratch = commit_ui.show_commit_scratch

return M
