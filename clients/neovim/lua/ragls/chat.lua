---@mod ragls.chat A conversation with your documents: |:RagChat|.
---
--- One thread lives for the Neovim session: a markdown buffer with one `## question` heading per turn, the answer
--- streamed in place under it, then the turn's sources. A follow-up (`<CR>` on a line without a citation, or
--- |:RagAsk| in the chat buffer) sends the thread so far as `history` (docs/protocol.md), so "and how do I test
--- that?" is searched with the previous question's context. `q` / `<C-c>` stop the answer being streamed; `gs` or
--- `<CR>` on a `[n]` (or a source line) opens that source in the window the chat was opened from and the chat stays.
--- `:RagChat` reopens the thread, `:RagChat new` starts a new one (the old one is kept), `:RagChat list` picks one of
--- the session's threads (or a new one) to continue.
---
--- Each turn owns its request (|ragls.chat_request|): its own `partialResultToken` and request id, so a delta can only
--- ever land in the turn that asked for it, and a new question first stops the one still streaming.
---
--- The thread's text (headings, answers, sources, footers) comes from |ragls.chat_text|; this module draws it.

local config = require("ragls.config")
local rpc = require("ragls.rpc")
local answer_text = require("ragls.answer_text")
local chat_request = require("ragls.chat_request")
local chat_text = require("ragls.chat_text")
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local longest_fitting = require("ragls.text").longest_fitting

local M = {}

local ns = vim.api.nvim_create_namespace("ragls-chat")
M.BUF_NAME = "ragls://chat"

---@class ragls.ChatTurn
---@field question string
---@field text string           streamed text so far, then the final answer
---@field result table|nil      the rag/ask result once it arrived
---@field status "streaming"|"done"|"cancelled"|"error"
---@field error string|nil
---@field cancel fun()|nil      stops this turn's request while streaming
---@field pending string|nil     until the first words: what the answer waits for (answer_float.pending_line)

---@class ragls.ChatThread
---@field turns ragls.ChatTurn[]
---@field buf integer|nil
---@field win integer|nil
---@field origin_win integer|nil  where sources open
---@field line_turn table<integer, integer>   1-based line -> turn index (answer lines)
---@field line_source table<integer, table>   1-based line -> source (source lines)
---@field heading_line table<integer, integer> turn index -> 1-based line of its `## question`

---@type ragls.ChatThread
M.thread = { turns = {}, line_turn = {}, line_source = {}, heading_line = {} }

--- Is `bufnr` (0: current) the chat buffer?
---@param bufnr? integer
---@return boolean
function M.is_chat_buf(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return M.thread.buf ~= nil and bufnr == M.thread.buf and vim.api.nvim_buf_is_valid(bufnr)
end

--- The `history` for the next question: every finished turn's question and answer, oldest first (cancelled and
--- failed turns are left out: their answer is not something the user saw completed).
---@return table[] { role, content }
function M.history()
  local out = {}
  for _, turn in ipairs(M.thread.turns) do
    if turn.status == "done" and turn.result and not turn.result.abstained then
      table.insert(out, { role = "user", content = turn.question })
      table.insert(out, { role = "assistant", content = turn.result.answer or turn.text })
    end
  end
  return out
end

--- The key hint that fits the chat window `win` (|M.keys_hint|): in its bottom border when it is a float with one,
--- else in its winbar. Chosen again at each render, so a resized window gets the one that fits it: one chosen for a
--- wider window was cut by Neovim at its left ("<p · <C-q> quickfix · r retry · q close") once the split narrowed.
---@param win integer
local function show_keys_hint(win)
  local hint = M.keys_hint(vim.api.nvim_win_get_width(win))
  local cfg = vim.api.nvim_win_get_config(win)
  if cfg.relative ~= "" then
    local border = config.values.float.border
    local shown = type(cfg.footer) == "table" and type(cfg.footer[1]) == "table" and cfg.footer[1][1] or cfg.footer
    if border ~= "none" and border ~= "" and (shown or "") ~= (hint or "") then
      pcall(vim.api.nvim_win_set_config, win, { footer = hint or "", footer_pos = "right" })
    end
    return
  end
  local winbar = hint and ("%#Comment#" .. hint:gsub("%%", "%%%%")) or ""
  if vim.wo[win].winbar ~= winbar then
    vim.wo[win].winbar = winbar
  end
end

--- Redraw the chat buffer from the thread (cheap: threads are short). Keeps the cursor at the end when it was
--- there, so a streamed answer stays in view. `reveal` (a turn index): put that turn's heading at the top of every
--- chat window, the cursor on it — a new question is shown from its heading, whatever the window size.
---@param reveal? integer
function M.render(reveal)
  local t = M.thread
  if not (t.buf and vim.api.nvim_buf_is_valid(t.buf)) then
    return
  end
  local lines, line_turn, line_source, heading_line = chat_text.thread_lines(t.turns, #M.past)
  -- a source line wider than the narrowest window showing the chat wraps after a "/" of its path or at a space,
  -- never inside its location (answer_text.wrap_source_line; again when a window's width changes: M.open)
  local width
  for _, w in ipairs(vim.fn.win_findbuf(t.buf)) do
    width = math.min(width or math.huge, vim.api.nvim_win_get_width(w) - vim.fn.getwininfo(w)[1].textoff)
    show_keys_hint(w)
  end
  local joins = {}
  if width then -- (and a code line wider than it broken where code may break, yanked whole: ragls.code_wrap)
    local moved
    lines, line_source, moved, joins = answer_text.wrap_sources(lines, line_source, width)
    local turns = {}
    for i, turn in pairs(line_turn) do
      local last = (moved[i + 1] or #lines + 1) - 1 -- every part of line i
      for l = moved[i], last do
        turns[l] = turn
      end
    end
    line_turn = turns
    heading_line = vim.tbl_map(function(l) return moved[l] end, heading_line)
  end
  t.line_turn, t.line_source, t.heading_line = line_turn, line_source, heading_line
  local follow = {}
  for _, w in ipairs(vim.fn.win_findbuf(t.buf)) do
    local cur = vim.api.nvim_win_get_cursor(w)[1]
    follow[w] = cur >= vim.api.nvim_buf_line_count(t.buf) - 1
  end
  vim.bo[t.buf].modifiable = true
  vim.api.nvim_buf_set_lines(t.buf, 0, -1, false, lines)
  require("ragls.code_wrap").track(t.buf, joins)
  ui.conceal_fences(t.buf)
  vim.bo[t.buf].modifiable = false
  vim.bo[t.buf].modified = false
  vim.api.nvim_buf_clear_namespace(t.buf, ns, 0, -1)
  for lnum in pairs(line_source) do
    vim.api.nvim_buf_set_extmark(t.buf, ns, lnum - 1, 0, { line_hl_group = "Directory" })
  end
  for w, at_end in pairs(follow) do
    if reveal and heading_line[reveal] and vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_set_cursor(w, { heading_line[reveal], 0 })
      vim.api.nvim_win_call(w, function()
        vim.fn.winrestview({ topline = heading_line[reveal] })
      end)
    elseif at_end and vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_set_cursor(w, { #lines, 0 })
    end
  end
end

--- The turn under the cursor (its heading, answer or sources), else the last one; nil in an empty thread.
---@return ragls.ChatTurn|nil
function M.turn_at_cursor()
  local t = M.thread
  local idx = t.line_turn[vim.api.nvim_win_get_cursor(0)[1]]
  if not idx then
    for i, line in pairs(t.heading_line) do
      if line <= vim.api.nvim_win_get_cursor(0)[1] and (not idx or i > idx) then
        idx = i
      end
    end
  end
  return t.turns[idx or #t.turns]
end

--- Ask the turn under the cursor (else the last one) again, as a new turn.
---@return ragls.ChatTurn|nil
function M.retry()
  local turn = M.turn_at_cursor()
  return turn and M.ask(turn.question) or nil
end

--- `<C-q>`: the sources of the turn under the cursor to the quickfix list (`ui.quickfix_sources`); the chat stays.
---@return integer items
function M.sources_to_quickfix()
  local turn = M.turn_at_cursor()
  return ui.quickfix_sources(turn and turn.question or "", turn and turn.result)
end

--- The key hint shown in the chat window's winbar (split layouts) or bottom border (float): the longest that fits.
--- Every one names the follow-up (`<CR>` away from a source), the chat's main key: the default split of a 120- or
--- 80-column editor (59 or 39 columns) showed "<CR> open · <C-q> qf · q close", and nothing said how to ask one.
---@param width integer
---@return string|nil
function M.keys_hint(width)
  return longest_fitting({
    " <CR> open source / ask a follow-up · <C-q> sources to quickfix · r ask again · q stop/close ",
    " <CR> open / follow up · <C-q> quickfix · r retry · q close ",
    " <CR> open / follow up · <C-q> qf · r retry · q close ",
    " <CR> open / follow up · q close ",
    " <CR> open/ask · q close ",
  }, width)
end

--- The source under the cursor: the source line, or the `[n]` nearest the cursor in a turn's answer.
---@return table|nil source
---@return string|nil why  when there is none
function M.source_at_cursor()
  local t = M.thread
  local lnum, col0 = unpack(vim.api.nvim_win_get_cursor(0))
  if t.line_source[lnum] then
    return t.line_source[lnum]
  end
  local idx = t.line_turn[lnum]
  if not idx then
    return nil
  end
  local n = require("ragls.citation").item_citation(vim.api.nvim_buf_get_lines(t.buf, 0, -1, false), lnum, col0 + 1)
  if not n then
    return nil
  end
  local result = t.turns[idx].result
  for _, s in ipairs(result and result.sources or {}) do
    if s.n == n then
      return ui.cited_source(s, t.buf, lnum)
    end
  end
  return nil, ("ragls: this answer has no source [%d]"):format(n)
end

--- Open the source under the cursor in the window the chat came from; the chat stays (a float chat is closed
--- so the source is visible, and `:RagChat` brings it back). Returns true when it jumped.
---@return boolean
function M.follow()
  local source, why = M.source_at_cursor()
  if not source then
    if why then
      rpc.notify(why, vim.log.levels.WARN)
    end
    return false
  end
  local t = M.thread
  local chat_win = vim.api.nvim_get_current_win()
  local target = t.origin_win
  if not (target and vim.api.nvim_win_is_valid(target)) or target == chat_win then
    vim.cmd((config.values.chat.layout == "split" and "aboveleft split" or "aboveleft vsplit"))
    target = vim.api.nvim_get_current_win()
    t.origin_win = target
  end
  local is_float = vim.api.nvim_win_get_config(chat_win).relative ~= ""
  local jumped = jump.jump_to_source(source, target)
  if jumped and is_float and vim.api.nvim_win_is_valid(chat_win) then
    vim.api.nvim_win_close(chat_win, true)
  end
  return jumped
end

--- Stop the answer being streamed, if any. Returns true when one was stopped.
---@return boolean
function M.cancel()
  local stopped = false
  for _, turn in ipairs(M.thread.turns) do
    if turn.status == "streaming" and turn.cancel then
      turn.cancel()
      stopped = true
    end
  end
  return stopped
end

local function set_keymaps(buf)
  local function map(lhs, rhs, desc)
    vim.keymap.set("n", lhs, rhs, { buffer = buf, desc = "ragls chat: " .. desc, nowait = true })
  end
  map("<CR>", function()
    if M.source_at_cursor() then
      M.follow()
      return
    end
    ui.input({ prompt = #M.thread.turns > 0 and "Follow-up: " or "Ask ragls: " }, function(input)
      M.ask(input)
    end)
  end, "open the source under the cursor, else ask a follow-up")
  map("gs", M.follow, "open the source under the cursor")
  map("r", M.retry, "ask the turn under the cursor again")
  map("<C-q>", M.sources_to_quickfix, "the sources of the turn under the cursor to the quickfix list")
  map("<C-c>", M.cancel, "stop the answer")
  map("q", function()
    if not M.cancel() then
      vim.cmd("close")
    end
  end, "stop the answer, or close the chat window")
end

local function ensure_buf()
  local t = M.thread
  if t.buf and vim.api.nvim_buf_is_valid(t.buf) then
    return t.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide" -- closing the window keeps the thread
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, M.BUF_NAME)
  vim.bo[buf].filetype = "markdown"
  t.buf = buf
  set_keymaps(buf)
  M.render()
  return buf
end

--- Show the chat buffer (focus it when it is already shown) in the configured layout; returns its window.
---@return integer win
function M.open()
  local t = M.thread
  local buf = ensure_buf()
  local cur = vim.api.nvim_get_current_win()
  if cur ~= t.win or not vim.api.nvim_win_is_valid(cur) then
    t.origin_win = cur
  end
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_set_current_win(w)
    t.win = w
    return w
  end
  local layout = config.values.chat.layout
  local win
  if layout == "float" then -- as the answer float: its size (a count of columns too), following the editor's
    local at = ui.float_geometry()
    win = vim.api.nvim_open_win(buf, true, {
      relative = "editor", width = at.width, height = at.height, style = "minimal", row = at.row, col = at.col,
      border = config.values.float.border or "rounded", title = " ragls chat ", title_pos = "center",
    })
    ui.follow_editor_size(win)
    ui.on_resize(win, function() M.render() end)
  else
    vim.cmd(layout == "split" and "belowright split" or "belowright vsplit")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    -- `chat.width` / `chat.height`: a share of the editor or a count (a 50-column half of a 100-column editor breaks
    -- most code lines); nil keeps the half Neovim gives a new split
    local wanted = config.values.chat[layout == "split" and "height" or "width"]
    if wanted then
      if layout == "split" then
        vim.api.nvim_win_set_height(win, ui.size(wanted, vim.o.lines, 3))
      else
        vim.api.nvim_win_set_width(win, ui.size(wanted, vim.o.columns, 20))
      end
    end
  end
  ui.prose_window(win, buf)
  t.win = win
  M.render() -- wrapped to this window's width
  local last = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_win_set_cursor(win, { last, 0 })
  if not t.resize_autocmd then -- the chat's source lines wrapped again to a window's new width
    t.resize_autocmd = vim.api.nvim_create_autocmd("WinResized", {
      group = vim.api.nvim_create_augroup("ragls_chat_resize", { clear = true }),
      desc = "ragls: wrap the chat's source lines to its window's new width",
      callback = function()
        for _, w in ipairs(vim.v.event.windows or {}) do
          if vim.api.nvim_win_is_valid(w) and vim.api.nvim_win_get_buf(w) == M.thread.buf then
            return M.render() -- (its key hint too)
          end
        end
      end,
    })
  end
  return win
end

--- Earlier threads of the session, newest first: { turns }.
---@type { turns: ragls.ChatTurn[] }[]
M.past = {}

--- Start a new thread: stops the answer being streamed; the current thread (if it has turns) goes to `M.past`.
function M.new()
  M.cancel()
  if #M.thread.turns > 0 then
    table.insert(M.past, 1, { turns = M.thread.turns })
  end
  M.thread.turns = {}
  M.render()
end

--- Make `M.past[i]` the current thread (the current one, if it has turns, takes its place in the list).
---@param i integer
function M.switch(i)
  local picked = M.past[i]
  if not picked then
    return
  end
  M.cancel()
  table.remove(M.past, i)
  if #M.thread.turns > 0 then
    table.insert(M.past, 1, { turns = M.thread.turns })
  end
  M.thread.turns = picked.turns
  M.open()
  M.render(#picked.turns)
end

--- |:RagChat| list: the session's threads in one picker — the current one first, then the earlier ones (newest
--- first), each by its first question and number of questions, and "New chat". The choice is opened.
function M.pick()
  local items = {}
  if #M.thread.turns > 0 then
    table.insert(items, { current = true, turns = M.thread.turns })
  end
  for i, past in ipairs(M.past) do
    table.insert(items, { index = i, turns = past.turns })
  end
  table.insert(items, { new = true })
  vim.ui.select(items, {
    prompt = "ragls chats",
    kind = "ragls.chat",
    format_item = function(item)
      if item.new then
        return "+ New chat"
      end
      local t = item.turns
      return ("%s (%d question%s)%s"):format(t[1].question, #t, #t == 1 and "" or "s", item.current and " · current" or "")
    end,
  }, function(item)
    if not item then
      return
    elseif item.new then
      M.new()
      M.open()
    elseif item.current then
      M.open()
    else
      M.switch(item.index)
    end
  end)
end

--- Ask `question` as the next turn of the thread (a follow-up when there are turns). Opens the chat.
---@param question string
---@param opts? { documents?: string[], on_result?: fun(result: table), cleanup?: fun() }
---@return ragls.ChatTurn|nil
function M.ask(question, opts)
  opts = opts or {}
  question = vim.trim(question or "")
  if question == "" then
    return nil
  end
  M.cancel() -- one answer streams at a time; the older one is stopped, never mixed into the new turn
  local history = M.history()
  ---@type ragls.ChatTurn
  local turn = { question = question, text = "", status = "streaming" }
  table.insert(M.thread.turns, turn)
  M.open()
  M.render(#M.thread.turns)
  chat_request.send(turn, history, opts, function() M.render() end)
  return turn
end

--- |:RagChat|: no argument reopens the thread; "new" starts a new one; anything else is asked in the thread.
---@param args string
function M.command(args)
  args = vim.trim(args or "")
  if args == "new" then
    M.new()
    M.open()
  elseif args == "list" then
    M.pick()
  elseif args == "" then
    M.open()
  else
    M.ask(args)
  end
end

return M
