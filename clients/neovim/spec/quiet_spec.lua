-- Quiet with Neovim's own vim.notify (no notification plugin): the first index is shown on the cmdline (never in
-- :messages while it runs, never wider than the cmdline, so never a hit-enter prompt) and ends with one
-- "ragls: indexed" message; a later index (`:w` re-indexes the file) adds nothing to :messages and echoes nothing;
-- a ragls error is not overwritten by progress. Echoes are observed by wrapping nvim_echo (what vim.notify and the
-- plugin both call) and through the LspProgress event.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

vim.notify = H.real_notify -- what a user without a notification plugin has
local echoes = {}
local echo = vim.api.nvim_echo
vim.api.nvim_echo = function(chunks, history, opts)
  local text = table.concat(vim.tbl_map(function(c) return c[1] end, chunks), "")
  table.insert(echoes, { text = text, history = history, at = vim.uv.now() })
  return echo(chunks, history, opts)
end
local ends, reports = 0, 0
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local kind = ev.data and ev.data.params and ev.data.params.value.kind
    ends = ends + (kind == "end" and 1 or 0)
    reports = reports + (kind == "report" and 1 or 0)
  end,
})

local function ragls_echoes(from)
  return vim.tbl_filter(function(e) return e.text:find("ragls", 1, true) end, vim.list_slice(echoes, from))
end

-- The ragls echoes since `from` that the command line keeps (not in the history), and those kept in :messages.
local function cmdline_echoes(from)
  return vim.tbl_filter(function(e) return not e.history end, ragls_echoes(from))
end
local function history_echoes(from)
  return vim.tbl_filter(function(e) return e.history end, ragls_echoes(from))
end

local function messages()
  return vim.api.nvim_exec2("messages", { output = true }).output
end

H.load_plugin_for_workspace()
local progress = require("ragls.progress")
H.open_and_wait_indexed("README.md", 3)

H.it("the first index: progress echoed on one line and kept out of :messages; one 'indexed' at the end", function()
  H.ok(reports > 0 or ends > 0, "the server reported progress")
  local shown = ragls_echoes(1)
  H.ok(#shown > 0, "progress was shown: " .. vim.inspect(echoes))
  for _, e in ipairs(shown) do
    H.ok(vim.fn.strdisplaywidth(e.text) < vim.o.columns, "fits the cmdline: " .. e.text)
    H.ok(not e.text:find("\n", 1, true), "one line: " .. e.text)
  end
  local in_history = vim.tbl_filter(function(e) return e.history end, shown)
  H.eq(1, #in_history, "one message kept in :messages: " .. vim.inspect(in_history))
  H.contains(in_history[1].text, "ragls: indexed")
  H.eq(1, select(2, messages():gsub("ragls: indexed", "")), ":messages has it once")
end)

H.it("a long progress message is cut to the cmdline width (never a hit-enter prompt)", function()
  local long = "using the bundled offline embedding model sentence-transformers/all-MiniLM-L6-v2 (ragls's default, "
    .. "BAAI/bge-small-en-v1.5, is not downloaded and cannot be downloaded now). Nothing to do. Model files: "
    .. string.rep("a-long-folder/", 12) .. "all-MiniLM-L6-v2"
  local fitted = progress.fit("ragls: indexing " .. long)
  H.ok(vim.fn.strdisplaywidth(fitted) <= vim.v.echospace, "fits: " .. fitted)
  H.eq("…", vim.fn.strcharpart(fitted, vim.fn.strchars(fitted) - 1), "marked as cut")
  H.eq("ragls: short", progress.fit("ragls: short"), "a short text stays")
end)

H.it("a progress message of wide characters (CJK) is cut by display width, keeping its percentage", function()
  local cjk = ("索引文件夹中的文档"):rep(8) -- 72 characters, 144 columns
  local p = { title = "ragls: indexing", message = cjk, percentage = 45 }
  for _, room in ipairs({ 40, 64, 90 }) do
    local fitted = progress.fitting_text(p, room)
    H.ok(vim.fn.strdisplaywidth(fitted) <= room, ("fits %d columns (%d): %s"):format(room,
      vim.fn.strdisplaywidth(fitted), fitted))
    H.eq("… (45%)", vim.fn.strcharpart(fitted, vim.fn.strchars(fitted) - 7), "the percentage kept: " .. fitted)
    H.ok(vim.fn.strdisplaywidth(fitted) >= room - 2, "no more than a wide character's room lost: " .. fitted)
  end
  local fitted = progress.fit("ragls: indexing " .. cjk)
  H.ok(vim.fn.strdisplaywidth(fitted) <= vim.v.echospace, "fit: within the cmdline: " .. fitted)
  H.eq("…", vim.fn.strcharpart(fitted, vim.fn.strchars(fitted) - 1), "marked as cut")
end)

H.it(":w re-indexes the file silently: nothing in :messages, nothing echoed", function()
  local before_ends, from = ends, #echoes + 1
  local before = messages()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "faq.md")))
  H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls", bufnr = 0 }) > 0 end, 10000, "attached")
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "", "Saved from the quiet spec: zanzibar." })
  vim.cmd("silent write")
  H.wait_for(function() return ends > before_ends end, 60000, "the re-index to end")
  H.eq(before, messages(), ":messages unchanged")
  H.eq({}, ragls_echoes(from), "nothing echoed")
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local hits = H.request_sync(client, "rag/query", { query = "zanzibar" }).result.chunks
  H.ok(#hits > 0 and hits[1].source.path == "faq.md", "the saved text is indexed: " .. vim.inspect(hits[1]))
end)

H.it("progress does not overwrite a ragls error on the cmdline", function()
  progress.first_done = false -- as during the first index
  require("ragls.rpc").notify("ragls: nothing staged", vim.log.levels.ERROR)
  local from = #echoes + 1
  progress.on_progress({ token = "t-quiet", value = { kind = "begin", title = "ragls: indexing", message = "1/2 files" } })
  progress.on_progress({ token = "t-quiet", value = { kind = "report", message = "2/2 files", percentage = 90 } })
  H.eq({}, ragls_echoes(from), "no progress echoed over the error")
  progress.last_error_at = nil
  progress.on_progress({ token = "t-quiet2", value = { kind = "begin", title = "ragls: indexing", message = "1/2 files" } })
  H.eq(1, #ragls_echoes(from), "without a recent error it is echoed")
  progress.reset()
end)

H.it("messages piling up while the screenshot UI is attached never wait on a hit-enter prompt", function()
  -- (a spec's vim.wait does not redraw; with a UI attached the third line asked for <Enter>, and `nvim -l`, reading
  -- it from a closed stdin, exited 0 in the middle of the spec: picker_spec's screenshot during the first index)
  H.with_ui(function()
    for i = 1, 3 do
      vim.schedule(function() echo({ { "ragls: a message that arrives during a screenshot " .. i } }, false, {}) end)
    end
    local done = false
    vim.schedule(function() done = true end)
    H.wait_for(function() return done end, 5000, "the messages")
    vim.cmd("redraw")
  end)
end)

H.it("a notice wider than the command line: its line cut there, the whole text in a float, no hit-enter prompt",
  function()
  -- (session 66: at 60 columns the "server stopped" notice took two rows of the screen, scrolled over the statusline,
  -- and stopped on "Press ENTER" with Neovim's own vim.notify; the spec's UI turns that prompt into a 0 ms wait)
  local columns = vim.o.columns
  vim.o.columns = 60
  vim.o.statusline = "the statusline"
  local from = #echoes + 1
  local msg = require("ragls.server").stopped_notice("killed by signal 9")
  H.ok(vim.fn.strdisplaywidth(msg) > vim.v.echospace, ("wider than the cmdline (%d): %s"):format(vim.v.echospace, msg))
  local cut = progress.fit(msg)
  local rows = H.with_ui(function()
    require("ragls.rpc").notify(msg, vim.log.levels.WARN)
    -- (what Neovim's main loop does next, which a spec has not: the whole notice redrawn over with 'messagesopt'
    -- wait:0; then notice.RESTORE_MS later the cut line is echoed)
    vim.cmd("redraw")
    H.wait_for(function() return #cmdline_echoes(from) > 0 end, 2000, "the line left on the command line")
    vim.cmd("redraw")
    return H.screen_text()
  end)
  -- what the command line keeps fits (the notice itself, two rows at 60 columns, was the hit-enter prompt)
  for _, e in ipairs(cmdline_echoes(from)) do
    H.ok(vim.fn.strdisplaywidth(e.text) <= vim.v.echospace and not e.text:find("\n"), "fits the cmdline: " .. e.text)
  end
  -- and :messages the whole notice, once (it had only the cut line): shown with 'messagesopt' wait:0, no prompt
  H.eq({ msg }, vim.tbl_map(function(e) return e.text end, history_echoes(from)), "kept whole in :messages")
  H.contains(messages(), msg, ":messages has the whole notice")
  vim.o.columns = columns
  H.ok(rows[#rows - 1]:find("the statusline", 1, true), "the statusline in its row:\n" .. table.concat(rows, "\n"))
  H.eq(cut, vim.trim(rows[#rows]), "the cmdline: the notice's line, cut")
  H.eq("…", vim.fn.strcharpart(cut, vim.fn.strchars(cut) - 1), "marked as cut")
  local float = vim.iter(H.floats()):find(function(w) return not vim.api.nvim_win_get_config(w).focusable end)
  H.ok(float, "a float")
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), " ")
  H.eq(msg, shown, "the whole notice in the float")
  H.contains(table.concat(rows, "\n"), "restarts it", "on the screen")
  require("ragls.notice").close()
  H.eq(nil, vim.iter(H.floats()):find(function(w) return not vim.api.nvim_win_get_config(w).focusable end), "closed")
end)

H.it("the server's untrusted-folder warning (window/showMessage, 3 rows at 100 columns) in a float, no prompt",
  function()
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local toml = vim.fs.joinpath(H.workspace, "ragls.toml")
  -- the server's wording (config/trust_filter.py), as it sends it after vim.secure's question was not answered allow
  local warning = ("ragls: %s's LLM settings (generation.backend, generation.base_url) are ignored until the folder "
    .. "is trusted: a folder's file cannot send your questions and keys elsewhere. Run :RagTrust (Neovim) or "
    .. "`ragls trust %s` to allow them."):format(toml, H.workspace)
  local columns = vim.o.columns
  vim.o.columns = 100
  vim.o.statusline = "the statusline"
  local from = #echoes + 1
  local rows = H.with_ui(function()
    local handler = client.handlers["window/showMessage"] or vim.lsp.handlers["window/showMessage"]
    handler(nil, { type = 2, message = warning }, { client_id = client.id, method = "window/showMessage" })
    vim.cmd("redraw") -- (as above)
    H.wait_for(function() return #cmdline_echoes(from) > 0 end, 2000, "the line left on the command line")
    vim.cmd("redraw")
    return H.screen_text()
  end)
  local echoed = cmdline_echoes(from)
  H.ok(#echoed > 0, "said on the cmdline too")
  for _, e in ipairs(echoed) do
    H.ok(vim.fn.strdisplaywidth(e.text) <= vim.v.echospace and not e.text:find("\n"), "fits the cmdline: " .. e.text)
  end
  vim.o.columns = columns
  H.ok(rows[#rows - 1]:find("the statusline", 1, true), "the statusline in its row:\n" .. table.concat(rows, "\n"))
  local float = vim.iter(H.floats()):find(function(w) return not vim.api.nvim_win_get_config(w).focusable end)
  H.ok(float, "a float")
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), " ")
  -- (the long path is cut after a "/" where a row ends: joined with a space here)
  H.eq(warning:gsub("%s", ""), (shown:gsub("%s", "")), "the whole warning")
  H.ok(#vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false) >= 3, "on several rows")
  H.contains(messages(), warning, ":messages has the whole warning (to read the command it names, once the float closed)")
  require("ragls.notice").close()
end)

H.it("a wide notice from a callback (git's answer to :RagCommit's :w): no hit-enter prompt, 'messagesopt' set back",
  function()
  -- Neovim asks for Enter after a message wider than the command line that a callback shows, also after :redraw
  -- (tried in tmux: "Press ENTER" under git's message); with 'messagesopt' wait:0 it redraws over it instead, and
  -- the option is set back once the cut line is echoed.
  local saved = vim.o.messagesopt
  vim.o.messagesopt = "hit-enter,history:500"
  local msg = "ragls: git commit failed: Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n"
    .. '  git config --global user.email "you@example.com"'
  local during
  vim.schedule(function()
    require("ragls.rpc").notify(msg, vim.log.levels.ERROR)
    during = vim.o.messagesopt
  end)
  H.wait_for(function() return during ~= nil end, 2000, "the notice")
  H.eq("wait:0,history:500", during, "no hit-enter prompt for the whole notice")
  H.wait_for(function() return vim.o.messagesopt == "hit-enter,history:500" end, 2000, "'messagesopt' set back")
  H.contains(messages(), msg, ":messages has the whole notice")
  require("ragls.notice").close()
  vim.o.messagesopt = saved
end)

H.it(":RagAsk without a question: the command line does not keep 'Ask ragls: <question>'", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local rows = H.with_ui(function()
    vim.api.nvim_feedkeys("How long is the frobnicator timeout?\r", "t", false)
    vim.cmd("RagAsk")
    vim.cmd("redraw")
    return H.screen_text()
  end)
  H.ok(not table.concat(rows, "\n"):find("Ask ragls:", 1, true), "no prompt left:\n" .. table.concat(rows, "\n"))
  H.ok(H.floats()[1], "the answer float opened")
  H.close_floats()
end)

H.finish()
