-- :RagChat against the real server with the openai backend pointed at the loopback LLM server (started by
-- tests/clients/test_neovim.py for `*_llm_spec.lua`): two turns in one thread (the follow-up carries the history;
-- the pytest side asserts what the model received), a jump to a source and back, cancel with `q`, `:RagChat new`,
-- and the float layout. The fake model answers "The frobnicator timeout defaults to 42 seconds [1]." and waits
-- 20 s before answering anything that contains "(please-wait)".
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local readme_win = vim.api.nvim_get_current_win()
local chat
local users_breakat = vim.o.breakat -- the global 'breakat' (ui.NUMBER_BREAKS go while a chat or answer is shown)
local narrowed = users_breakat:gsub("[" .. vim.pesc(require("ragls.ui").NUMBER_BREAKS) .. "]", "")

local function headings()
  local out = {}
  for _, l in ipairs(vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)) do
    if l:match("^## ") then
      table.insert(out, l)
    end
  end
  return out
end

local function wait_turn(i, status)
  return H.wait_for(function()
    local t = chat.thread.turns[i]
    return t and t.status == (status or "done") and t
  end, 60000, ("turn %d to be %s"):format(i, status or "done"))
end

H.it(":RagChat opens an empty thread in a vertical split", function()
  vim.cmd("RagChat")
  chat = require("ragls.chat")
  H.ok(chat.is_chat_buf(0), "the chat buffer is current")
  H.eq(2, #vim.api.nvim_tabpage_list_wins(0), "two windows")
  H.eq("", vim.api.nvim_win_get_config(0).relative, "a split, not a float")
  H.eq("markdown", vim.bo.filetype, "markdown")
  H.eq(0, #chat.thread.turns, "no turns yet")
end)

H.it(":RagAsk in the chat buffer streams the first turn under its ## heading", function()
  vim.cmd("RagAsk How long is the frobnicator timeout?")
  local turn = wait_turn(1)
  H.eq("The frobnicator timeout defaults to 42 seconds [1].", turn.result.answer, "answer")
  H.eq(nil, turn.result.retrievalQuery, "no history: no rewrite")
  local lines = vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)
  H.eq("## How long is the frobnicator timeout?", lines[1], "heading")
  -- (the space before "[1]" a no-break one, so the window never wraps between them: ragls.code_wrap)
  H.ok(vim.tbl_contains(lines, "The frobnicator timeout defaults to 42 seconds" .. require("ragls.code_wrap").NBSP
    .. "[1]."), "answer line")
  H.ok(vim.tbl_contains(lines, "### Sources"), "sources listed")
end)

H.it("<CR> on a line without a citation asks a follow-up with the history; both turns stay", function()
  local input = vim.ui.input
  vim.ui.input = function(opts, cb)
    H.eq("Follow-up: ", opts.prompt, "prompt")
    cb("and how do I change it?")
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  vim.ui.input = input
  local turn = wait_turn(2)
  H.eq("how to change the frobnicator timeout", turn.result.retrievalQuery, "the rewritten query came back")
  -- Asked with the cursor at the top of the thread: the window still moves to the new turn's heading.
  local info = vim.fn.getwininfo(chat.thread.win)[1]
  local heading = chat.thread.heading_line[2]
  H.ok(info.topline <= heading and heading <= info.botline,
    ("the follow-up's heading (line %d) is in view (%d-%d)"):format(heading, info.topline, info.botline))
  H.eq({ "## How long is the frobnicator timeout?", "## and how do I change it?" }, headings(), "two turns")
  local lines = vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)
  H.ok(vim.tbl_contains(lines, "_searched: how to change the frobnicator timeout_"), "what was searched is shown")
  -- without an LLM the server appends the earlier question's words (retrievalContext): shown apart, not appended
  local searched = require("ragls.answer_text").searched_line
  H.eq("_searched with words from earlier: frobnicator timeout_", searched("and how do I change it?",
    { retrievalQuery = "and how do I change it? frobnicator timeout", retrievalContext = "frobnicator timeout" }))
  H.eq("", searched("How long is it?", { retrievalQuery = "How long is it?" }), "searched as asked: no line")
  H.eq({
    { role = "user", content = "How long is the frobnicator timeout?" },
    { role = "assistant", content = "The frobnicator timeout defaults to 42 seconds [1]." },
    { role = "user", content = "and how do I change it?" },
    { role = "assistant", content = "The frobnicator timeout defaults to 42 seconds [1]." },
  }, chat.history(), "history for the next turn")
end)

H.it("gs on [1] of the second turn opens the source beside the chat, which stays", function()
  local chat_win = vim.api.nvim_get_current_win()
  local lines = vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)
  local lnum
  for i = #lines, 1, -1 do
    if lines[i] == "The frobnicator timeout defaults to 42 seconds" .. require("ragls.code_wrap").NBSP .. "[1]." then
      lnum = i
      break
    end
  end
  local source = chat.thread.turns[2].result.sources[1]
  vim.api.nvim_win_set_cursor(0, { lnum, (lines[lnum]:find("[1]", 1, true)) })
  vim.api.nvim_feedkeys("gs", "mx", false)
  H.eq(readme_win, vim.api.nvim_get_current_win(), "the source opened in the window the chat came from")
  H.eq(source.path, H.rel(vim.api.nvim_buf_get_name(0)), "file")
  -- the answering passage (quoteRanges), else the answering lines when narrower than the chunk
  local at = (source.quoteRanges and source.quoteRanges[1]) or source.focusRange or source.range
  H.eq(at.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "line")
  H.ok(vim.api.nvim_win_is_valid(chat_win), "chat window still open")
  H.eq(chat.thread.buf, vim.api.nvim_win_get_buf(chat_win), "still showing the thread")
  -- 'breakat' is the same in the window beside the chat as in it: a move between them no longer rewraps this one
  H.eq(narrowed, vim.o.breakat, "'breakat' while the chat is shown beside")
  H.screenshot("neovim-chat-vsplit")
end)

H.it(":RagChat goes back to the thread with both turns", function()
  vim.cmd("RagChat")
  H.ok(chat.is_chat_buf(0), "back in the chat")
  H.eq(2, #vim.api.nvim_tabpage_list_wins(0), "no extra window")
  H.eq(2, #headings(), "both turns")
end)

H.it("the chat names its keys in the winbar; <C-q> on a turn sends its sources to the quickfix list", function()
  local chat_win = chat.thread.win
  H.contains(vim.wo[chat_win].winbar, "<CR> open / follow up", "key hint in the winbar")
  H.ok(vim.endswith(vim.wo[chat_win].winbar, "q close "), "the whole hint fits: " .. vim.wo[chat_win].winbar)
  -- resized, the chat shows the hint that fits it, whole: the one chosen at its opening was cut at its left ("<p ·")
  -- once the split narrowed
  local width = vim.api.nvim_win_get_width(chat_win)
  local function hint_for(w)
    vim.api.nvim_win_set_width(chat_win, w)
    H.eq(w, vim.api.nvim_win_get_width(chat_win), "the chat's width")
    chat.render() -- (WinResized does this in a running Neovim; a headless `-l` script has no main loop)
    H.eq("%#Comment#" .. chat.keys_hint(w), vim.wo[chat_win].winbar, ("the hint for %d columns"):format(w))
    return chat.keys_hint(w)
  end
  H.contains(hint_for(70), "<C-q> quickfix · r retry", "a longer hint in 70 columns")
  -- the split's default width in a 120-column editor, then in an 80-column one: each hint says how to follow up
  H.contains(hint_for(59), "<CR> open / follow up", "the follow-up named in 59 columns")
  local short = hint_for(40)
  H.ok(vim.fn.strdisplaywidth(short) <= 40 and vim.endswith(short, "q close "), "a shorter one whole in 40: " .. short)
  H.contains(short, "follow up", "the follow-up named in 40 columns")
  vim.api.nvim_win_set_width(chat_win, width)
  vim.api.nvim_win_set_cursor(chat_win, { chat.thread.heading_line[1], 0 })
  vim.api.nvim_feedkeys(vim.keycode("<C-q>"), "mx", false)
  local first = chat.thread.turns[1].result
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  H.eq("RagAsk: How long is the frobnicator timeout?", qf.title, "the turn under the cursor")
  H.eq(#first.sources, #qf.items, "one item per source")
  local at = first.sources[1].focusRange or first.sources[1].range
  H.eq(first.sources[1].path, H.rel(vim.api.nvim_buf_get_name(qf.items[1].bufnr)), "file")
  H.eq(at.start.line + 1, qf.items[1].lnum, "at the cited line")
  H.eq("[1]", qf.items[1].text:sub(1, 3), "numbered as in the answer")
  H.ok(vim.api.nvim_win_is_valid(chat_win), "the chat stays open")
  H.screenshot("neovim-chat-quickfix")
  vim.cmd("cclose")
  vim.cmd("RagChat")
  H.ok(chat.is_chat_buf(0), "back in the chat")
end)

H.it("q stops a streaming answer; the turn says so and the server acknowledges", function()
  H.notes = {}
  vim.cmd("RagAsk (please-wait) What does the frobnicator do?")
  local turn = chat.thread.turns[3]
  H.wait_for(function()
    return next(client.requests) ~= nil
  end, 10000, "the request to be pending")
  -- Until its first words the turn says what it waits for, as the answer float does (it was a bare "…")
  H.wait_for(function()
    return vim.iter(vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)):any(function(l)
      return l:match("^_… waiting for the answer: %d+ s %(q stops it%)_$") ~= nil
    end)
  end, 10000, "the turn to say how long it has waited for the answer")
  H.screenshot("neovim-chat-waiting")
  vim.api.nvim_feedkeys("q", "mx", false)
  H.eq("cancelled", turn.status, "stopped")
  H.ok(chat.is_chat_buf(0), "q while streaming does not close the chat")
  H.ok(vim.tbl_contains(vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false), "_(stopped)_"), "marked")
  H.wait_for(function()
    return next(client.requests) == nil
  end, 10000, "the server to acknowledge the cancellation")
  for _, n in ipairs(H.notes) do
    H.ok(n.level < vim.log.levels.WARN, "no warning or error: " .. n.msg)
  end
  -- A stopped turn is not sent as history.
  H.eq(4, #chat.history(), "two finished turns in the history")
end)

H.it(":RagChat new starts over and keeps the old thread; :RagChat list brings it back", function()
  local old = headings()
  H.ok(#old >= 2, "the thread so far: " .. vim.inspect(old))
  vim.cmd("RagChat new")
  H.eq(0, #chat.thread.turns, "empty thread")
  H.eq(old, vim.tbl_map(function(t) return "## " .. t.question end, chat.past[1].turns), "kept in the list")
  H.contains(table.concat(vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false), "\n"),
    ":RagChat list continues one of your 1 earlier chats", "the empty chat says where the old one is")
  local select = vim.ui.select
  local offered
  vim.ui.select = function(items, opts, cb)
    offered = vim.tbl_map(opts.format_item, items)
    cb(items[1])
  end
  vim.cmd("RagChat list")
  H.eq({ ("%s (%d questions)"):format(old[1]:sub(4), #old), "+ New chat" }, offered, "by its first question; or new")
  H.eq(old, headings(), "the old thread is back")
  H.eq(0, #chat.past, "and the empty one was not kept")
  -- with a current thread: it comes first, marked; "New chat" starts one and keeps it
  vim.ui.select = function(items, opts, cb)
    offered = vim.tbl_map(opts.format_item, items)
    cb(items[#items])
  end
  vim.cmd("RagChat list")
  H.eq({ ("%s (%d questions) · current"):format(old[1]:sub(4), #old), "+ New chat" }, offered, "the current one first")
  H.eq(0, #chat.thread.turns, "a new chat")
  H.eq(1, #chat.past, "the old one kept")
  vim.ui.select = function(items, _, cb) cb(items[1]) end
  vim.cmd("RagChat list")
  vim.ui.select = select
  H.eq(old, headings(), "and back again")
end)

H.it(":RagChat new starts over; q closes the idle chat window", function()
  vim.cmd("RagChat new")
  H.eq(0, #chat.thread.turns, "empty thread")
  H.eq("# ragls chat", vim.api.nvim_buf_get_lines(chat.thread.buf, 0, 1, false)[1], "placeholder")
  H.eq(narrowed, vim.o.breakat, "'breakat' while the chat is shown")
  vim.api.nvim_feedkeys("q", "mx", false)
  H.eq(1, #vim.api.nvim_tabpage_list_wins(0), "chat window closed")
  H.eq(users_breakat, vim.o.breakat, "the user's 'breakat' back once the chat closed")
end)

H.it("layout = float opens the thread in a float, sized as the answer's and following the editor's size", function()
  require("ragls").setup({ cmd = H.server_cmd, chat = { layout = "float" }, float = { width = 70 } })
  vim.cmd("RagChat How long is the frobnicator timeout?")
  local win = vim.api.nvim_get_current_win()
  H.ok(vim.api.nvim_win_get_config(win).relative ~= "", "a float")
  wait_turn(1)
  H.eq(1, #headings(), "one turn")
  -- `float.width` 70 is a count of columns, as for the answer float (it took the whole editor's width)
  H.eq(70, vim.api.nvim_win_get_width(win), "70 columns wide")
  local columns, lines = vim.o.columns, vim.o.lines
  vim.o.columns, vim.o.lines = 60, 14
  vim.cmd("doautocmd VimResized")
  local cfg = vim.api.nvim_win_get_config(win)
  vim.o.columns, vim.o.lines = columns, lines
  H.eq({ 60, true }, { cfg.width, cfg.row + cfg.height + 2 <= 14 - vim.o.cmdheight },
    "a smaller editor: the float within it, its border on screen")
  require("ragls").setup({ cmd = H.server_cmd, chat = { layout = "float" } })
end)

H.it("chat.width: the vsplit takes that many columns or that share of the editor; a bad one is refused", function()
  for _, w in ipairs(vim.fn.win_findbuf(chat.thread.buf)) do
    vim.api.nvim_win_close(w, true)
  end
  H.eq(true, require("ragls").setup({ cmd = H.server_cmd, chat = { width = 62 } }), "accepted")
  vim.cmd("RagChat")
  local win = vim.api.nvim_get_current_win()
  H.eq({ "", 62 }, { vim.api.nvim_win_get_config(win).relative, vim.api.nvim_win_get_width(win) },
    "a split of 62 columns, not half the editor")
  vim.api.nvim_win_close(win, true)
  require("ragls").setup({ cmd = H.server_cmd, chat = { width = 0.3 } })
  vim.cmd("RagChat")
  H.eq(math.floor(vim.o.columns * 0.3), vim.api.nvim_win_get_width(0), "30 % of the editor")
  vim.api.nvim_win_close(0, true)
  H.eq(false, require("ragls").setup({ cmd = H.server_cmd, chat = { width = 1.5 } }), "1.5 refused")
  H.ok(#H.notes_matching("`chat.width` must be a fraction in (0, 1]") > 0, "the message names it")
  require("ragls").setup({ cmd = H.server_cmd })
end)

H.it("an invalid layout is refused with a clear message", function()
  local ok = require("ragls").setup({ cmd = H.server_cmd, chat = { layout = "tab" } })
  H.eq(false, ok, "refused")
  H.ok(#H.notes_matching("`chat.layout` must be 'vsplit', 'split' or 'float'") > 0, "message")
end)

H.finish()
