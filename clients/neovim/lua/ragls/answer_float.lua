---@mod ragls.answer_float The answer float: the question, the answer as it streams, its sources and keys.
---
--- |M.answer_view| opens it (a placeholder says what the server is doing until the first words), `append` fills it,
--- `finish` shows the answer with its numbered sources; `<CR>` follows a source or an `[n]`, `<C-q>` sends the sources
--- to the quickfix list, `Y` yanks the answer, `r` asks again. Its text comes from |ragls.answer_text| (where an `[n]`
--- leads: |ragls.citation|); the float itself from |ragls.ui|.

local answer_text = require("ragls.answer_text")
local citation = require("ragls.citation")
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local one_line = require("ragls.text").one_line
local split_lines = require("ragls.text").split_lines

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

local ns = vim.api.nvim_create_namespace("ragls")

-- bufnr -> { by_line = {lnum -> source}, by_n = {n -> source}, origin_win = winid }
local answer_state = {}

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
  ui.conceal_fences(buf)
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
    local n = citation.item_citation(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lnum, col0 + 1)
    source = n and state.by_n[n]
    if n and not source then
      notify(("ragls: the answer has no source [%d]"):format(n), vim.log.levels.WARN)
      return
    end
    source = source and citation.cited_source(source, buf, lnum)
  end
  if not source then
    return
  end
  local float = vim.api.nvim_get_current_win()
  local jumpback = require("ragls.jumpback") -- <C-o> back at the origin reopens this answer
  jumpback.arm(state.origin_win, state.question, state.result, lnum)
  if not jump.jump_to_source(source, state.origin_win) then
    jumpback.disarm()
    return
  end
  jumpback.jumped()
  if vim.api.nvim_win_is_valid(float) then
    vim.api.nvim_win_close(float, true)
  end
end

--- `g?` in an answer float: list its keys (a notification: it stays readable beside the float).
function M.show_keys()
  local text = "ragls answer keys:\n" .. table.concat(answer_text.ANSWER_KEYS, "\n")
  -- (wrapped where a notifier cuts long lines: a description's rest under its column, past the key's 15; plain
  -- text, not snacks.notifier's Markdown, which drew the citation marker "[n]" as a link "n")
  vim.notify(require("ragls.notice").for_plugin(text, 15), vim.log.levels.INFO, { title = "ragls", ft = "text" })
end

--- `<C-q>` in an answer float: its sources to the quickfix list (`quickfix_sources`), the float closed first and
--- the window the question came from made current, so the list's entries open there. Returns the item count.
---@param buf integer the answer float's buffer
---@return integer
function M.sources_to_quickfix(buf)
  local state = answer_state[buf]
  if not (state and state.result and state.result.sources and #state.result.sources > 0) then
    return require("ragls.quickfix").quickfix_sources("", nil)
  end
  local float = vim.fn.bufwinid(buf)
  if float ~= -1 then
    vim.api.nvim_win_close(float, true)
  end
  if state.origin_win and vim.api.nvim_win_is_valid(state.origin_win) then
    vim.api.nvim_set_current_win(state.origin_win)
  end
  return require("ragls.quickfix").quickfix_sources(state.question, state.result)
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
    notify("ragls: nothing to yank until the answer is finished", vim.log.levels.WARN)
    return nil
  end
  local text = answer_text.answer_markdown(state.result)
  vim.fn.setreg(register or '"', text, "l")
  local n = #(state.result.sources or {})
  notify(("ragls: answer yanked with %d source%s"):format(n, n == 1 and "" or "s"), vim.log.levels.INFO)
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

--- The fewest rows of the answer float before the answer is finished: its question, a blank line and the placeholder.
M.PENDING_ROWS = 3

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
  local buf, win = ui.open_float({ "## " .. question, "", M.pending_line() }, { title = "ragls" })
  ui.conceal_fences(buf) -- the question's "## " hidden from the start (it showed until the first refresh)
  ui.follow_text_height(win, M.PENDING_ROWS) -- as tall as the question and "…", growing with the answer
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
    ui.follow_text_height(win, M.PENDING_ROWS)
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
  ui.on_scroll(win, function() -- "↓ N" follows the scrolling
    view:show_keys(view.keys_kind)
  end)
  ui.on_resize(win, function() -- the editor's new size: the float's new width and height
    view:refit()
  end)
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
--- sources", "failed"); once finished, with "↓ N" when text is below the fold (|ui.float_footer|). Called
--- again as the float scrolls.
---@param kind? "pending"|"no sources"|"failed"
function AnswerView:show_keys(kind)
  self.keys_kind = kind
  -- text under the fold (a long answer hides its sources) is said at the border's left: "↓ 12" (rows)
  ui.float_footer(self.win, function(width)
    return answer_text.answer_keys(width, kind)
  end, self.done)
end

--- The float was fitted to the resized editor (|ui.on_resize|): a finished answer is laid out again (its source
--- lines wrapped to the new width, the cursor kept on its line), the float as tall as its text, the footer's keys and
--- "↓ N" for the new size.
function AnswerView:refit()
  if not (self:valid() and vim.api.nvim_win_is_valid(self.win)) then
    return
  end
  local state = answer_state[self.buf]
  if self.done and state and state.result then
    local cursor = vim.api.nvim_win_get_cursor(self.win)
    self:finish(state.result)
    pcall(vim.api.nvim_win_set_cursor, self.win, cursor)
    return
  end
  ui.follow_text_height(self.win, M.PENDING_ROWS)
  self:show_keys(self.keys_kind)
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
  ui.follow_text_height(self.win, M.PENDING_ROWS)
end

--- Replace the streamed text with the final answer and its sources.
---@param result table rag/ask result
function AnswerView:finish(result)
  self.done = true
  self:stop_pending()
  if not self:valid() then
    return
  end
  local lines, by_line = answer_text.answer_lines(self.question, result)
  local joins = {}
  if self.win and vim.api.nvim_win_is_valid(self.win) then -- a source's location never split at its ":" or "-"
    -- (and a code line wider than the float broken where code may break, yanked whole: ragls.code_wrap)
    lines, by_line, _, joins = answer_text.wrap_sources(lines, by_line, vim.api.nvim_win_get_width(self.win))
  end
  set_lines(self.buf, lines, 0)
  require("ragls.code_wrap").track(self.buf, joins)
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
    ui.follow_text_height(self.win, 5) -- the answer is complete: no empty rows under a short one
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
    notify("ragls: no answer yet in this session; ask one with :RagAsk", vim.log.levels.INFO)
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
    ui.follow_text_height(self.win, M.PENDING_ROWS)
    self:show_keys("failed")
  end
end

return M
