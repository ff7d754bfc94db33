-- :RagAsk against the real ragls server with generation backend `none` (extractive answers, no LLM): the answer
-- float (its text, keys, footer, yank and quickfix list, its source lines), abstention, the pending and starting
-- states, code blocks. Opening a source from it and coming back: ask_jump_spec.lua; visual ranges and selections:
-- ask_range_spec.lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local answer_float = require("ragls.answer_float")
local ui = require("ragls.ui")

--- Run :RagAsk (with an optional range prefix) and wait for the finished answer float.
local ask = H.ask_float
local shown, find_line, frobnicator_source = H.shown_source, H.find_line, H.frobnicator_source

H.it(":RagAsk renders the answer and its sources in a markdown float", function()
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  H.eq("markdown", vim.bo[buf].filetype, "filetype")
  H.eq(false, result.abstained, "abstained")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  H.eq("## How long is the frobnicator timeout?", lines[1], "question heading")
  local text = table.concat(lines, "\n")
  -- the server's label line ("*Extractive answer (no LLM configured): …*", rag/ask `label`) is left out: the footer
  -- says who wrote the answer; the answer starts right under the question
  H.eq("string", type(result.label), "the server names its label line: " .. vim.inspect(result))
  H.ok(vim.startswith(result.answer, result.label .. "\n"), result.answer)
  H.ok(not text:find("Extractive answer", 1, true), "no label line in the float: " .. text)
  H.eq(require("ragls.code_wrap").glue_citations(vim.split(vim.trim(result.answer:sub(#result.label + 1)), "\n")[1]),
    lines[3], "the answer under the question (a citation's space a no-break one: ragls.code_wrap)")
  H.ok(vim.startswith(lines[#lines], "_extractive (no LLM) · "), "the footer: " .. lines[#lines])
  H.contains(result.answer, "42 seconds", "extractive answer quotes the fixture")
  H.ok(find_line(buf, "### Sources"), "sources heading")
  for _, s in ipairs(result.sources) do
    H.ok(find_line(buf, shown(s)), "source line " .. shown(s))
  end
  -- The cited sources under "### Sources", those the answer does not cite below them, apart.
  local cited_ns = {}
  for _, c in ipairs(result.citations) do
    cited_ns[c.n] = true
  end
  local uncited = vim.tbl_filter(function(s) return not cited_ns[s.n] end, result.sources)
  H.ok(#uncited > 0 and cited_ns[1], "the fixture's answer cites [1], not every source: " .. vim.inspect(result.citations))
  local apart = find_line(buf, "### Also retrieved, not cited")
  H.ok(apart and apart > find_line(buf, "### Sources"), "the uncited sources' heading below the sources")
  for _, s in ipairs(result.sources) do
    local at = find_line(buf, shown(s))
    H.eq(not cited_ns[s.n], at > apart, ("[%d] under the heading that fits it"):format(s.n))
  end
  H.ok(frobnicator_source(result), "a source covers the line that states the timeout")
  -- the label is the cited lines (focusRange, as the CLI prints and <CR> opens), not the whole chunk's range
  local src = frobnicator_source(result)
  H.ok(src.focusRange, "an extractive source has focus lines: " .. vim.inspect(src))
  local first = src.focusRange.start.line + 1
  local label = ("[%d] guide/frobnicator.md:%d"):format(src.n, first)
  local NB = require("ragls.answer_text").SHOWN_RANGE_DASH -- "8‑10": the range's hyphen a non-breaking one
  H.ok(vim.iter(lines):any(function(l) return l == label or vim.startswith(l, label .. NB) or vim.startswith(l, label .. " ") end),
    label .. " shown: " .. text)
  H.eq(win, vim.api.nvim_get_current_win(), "float has focus")
  -- wrapped at words, a list item's (or an LLM error quote's) wrapped lines hanging under its text
  H.eq({ true, true, "list:-1" }, { vim.wo[win].linebreak, vim.wo[win].breakindent, vim.wo[win].breakindentopt }, "wrap")
  H.eq(2, vim.fn.matchend("- a bullet", vim.bo[buf].formatlistpat), "a bullet is a list item")
  H.eq(2, vim.fn.matchend("> The LLM failed", vim.bo[buf].formatlistpat), "a quote hangs under its '> '")
  H.eq(4, vim.fn.matchend("[1] guide/frobnicator.md:8-10 — The frobnicator", vim.bo[buf].formatlistpat), "a source")
  -- no empty rows under the finished answer (the float shrinks to its text, never below 5 rows)
  local rows = vim.api.nvim_win_text_height(win, {}).all
  H.ok(vim.api.nvim_win_get_height(win) <= math.max(rows, 5), ("height %d for %d rows of text"):format(
    vim.api.nvim_win_get_height(win), rows))
end)

H.it("<Tab> / <S-Tab> move the cursor from [n] to [n] (citations, then source lines); <CR> there opens it", function()
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  local seen = {}
  for _ = 1, 3 do
    vim.api.nvim_feedkeys(vim.keycode("<Tab>"), "mx", false)
    local lnum, col0 = unpack(vim.api.nvim_win_get_cursor(win))
    local line = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
    H.ok(line:sub(col0 + 1):match("^%[%d+%]"), ("on a [n]: %q at column %d"):format(line, col0))
    table.insert(seen, { lnum, col0 })
  end
  H.ok(seen[1][1] > 1 and (seen[2][1] > seen[1][1] or seen[2][2] > seen[1][2]), "forward: " .. vim.inspect(seen))
  vim.api.nvim_feedkeys(vim.keycode("<S-Tab>"), "mx", false)
  H.eq(seen[2], vim.api.nvim_win_get_cursor(win), "<S-Tab> back to the previous one")
  vim.api.nvim_win_set_cursor(win, seen[1])
  local n = tonumber(vim.api.nvim_get_current_line():sub(seen[1][2] + 1):match("^%[(%d+)%]"))
  local source = vim.iter(result.sources):find(function(s) return s.n == n end)
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  H.eq(source.path, H.rel(vim.api.nvim_buf_get_name(0)), "the file of [n]")
end)

H.it("an answer asked during an index pass that leaves nothing out has no partial-index note", function()
  -- (the sentence pass of a first index runs after every chunk has its vector: "embedding answer sentences 4/288")
  local progress = require("ragls.progress")
  progress.active["t-sentences"] = { title = "ragls: indexing", message = "embedding answer sentences 4/288 chunks" }
  local ok, err = pcall(function()
    local _, buf = ask("RagAsk How long is the frobnicator timeout?")
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    H.ok(not text:find("still being built", 1, true), "no note: " .. text)
    H.eq(false, require("ragls").index_incomplete({ folders = { { pending = 0, pendingVectors = 0 } } }), "complete")
    H.eq(true, require("ragls").index_incomplete({ folders = { { pending = 0, pendingVectors = 3 } } }), "vectors")
    H.eq(true, require("ragls").index_incomplete({ folders = { { pending = 2, pendingVectors = 0 } } }), "files")
  end)
  progress.active["t-sentences"] = nil
  assert(ok, err)
end)

H.it("q closes the answer float", function()
  local win = ask("RagAsk Where are backups stored?")
  vim.api.nvim_feedkeys("q", "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "closed")
end)

H.it("the float's border names its keys; <C-q> sends every source to the quickfix list", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local origin = vim.api.nvim_get_current_win()
  local win, _, result = ask("RagAsk How long is the frobnicator timeout?")
  local footer = vim.iter(vim.api.nvim_win_get_config(win).footer or {}):map(function(c) return c[1] end):join("")
  H.contains(footer, "<C-q>", "key hint in the footer")
  H.ok(vim.endswith(footer, "q close "), "the whole hint fits the border: " .. footer)
  -- the rows below the fold said at the border's left ("↓ 7": its "Also retrieved" sources), the keys still whole
  local below = require("ragls.ui").rows_below(win)
  H.eq(below > 0 and (" ↓ %d "):format(below) or nil, footer:match("^ ↓ %d+ "), "the rows below: " .. footer)
  H.ok(vim.fn.strdisplaywidth(footer) <= vim.api.nvim_win_get_width(win) - (below > 0 and 0 or 4), "fits: " .. footer)
  H.eq(" <Tab> next · <CR> open · <C-q> quickfix · g? keys · q close ", require("ragls.ui").answer_keys(70),
    "narrower float: g? lists the keys left out")
  H.eq(" <Tab> next · <CR> open · <C-q> qf · g? keys · q close ", require("ragls.ui").answer_keys(64),
    "the float of an 80-column editor keeps <Tab>")
  H.eq(nil, require("ragls.ui").answer_keys(20), "no hint in a float too narrow for one")
  H.contains(footer, "<Tab> next", "the 80-column editor's float names <Tab>")
  -- g?: every key, those the footer has no room for too
  H.notes = {}
  vim.api.nvim_feedkeys("g?", "mx", false)
  local keys = H.wait_for(function() return H.notes_matching("ragls answer keys:")[1] end, 5000, "g?'s list").msg
  for _, key in ipairs({ "<Tab>/<S-Tab>", "<CR>", "<C-q>", "Y ", "r ", "q " }) do
    H.ok(keys:find("\n" .. key, 1, true), key .. " listed: " .. keys)
  end
  H.ok(vim.api.nvim_win_is_valid(win), "g? leaves the float open")
  H.screenshot("neovim-answer-keys")
  -- Y: the answer with its numbered sources, into the unnamed register (or the one typed before it), to paste
  vim.fn.setreg('"', "before")
  vim.api.nvim_feedkeys("Y", "mx", false)
  local yanked = vim.fn.getreg('"')
  H.eq("V", vim.fn.getregtype('"'), "linewise")
  -- (without the server's label line, as the float shows it)
  H.ok(result.label and vim.startswith(yanked, vim.trim(result.answer:sub(#result.label + 1)) .. "\n\nSources:\n\n"),
    "the answer, then its sources: " .. yanked)
  -- the sources the answer cites (listed under "### Sources"), not those under "Also retrieved, not cited"
  local cited_ns = {}
  for _, c in ipairs(result.citations) do
    cited_ns[c.n] = true
  end
  H.ok(#result.sources > #result.citations, "the fixture's answer leaves a source uncited")
  for _, source in ipairs(result.sources) do
    local line = ("[%d] %s"):format(source.n, ui.source_location(source))
    H.eq(cited_ns[source.n] == true, yanked:find(line, 1, true) ~= nil, "source " .. source.n .. " yanked iff cited")
  end
  H.contains(yanked, "[1] ", "a numbered source")
  vim.api.nvim_feedkeys('"aY', "mx", false)
  H.eq(yanked, vim.fn.getreg("a"), "into the register typed before Y")
  H.ok(vim.api.nvim_win_is_valid(win), "the float stays open")
  vim.api.nvim_feedkeys(vim.keycode("<C-q>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  H.eq("RagAsk: How long is the frobnicator timeout?", qf.title, "quickfix title")
  H.eq(#result.sources, #qf.items, "one item per source")
  for i, source in ipairs(result.sources) do
    local item, range = qf.items[i], source.focusRange or source.range
    H.eq(source.path, H.rel(vim.api.nvim_buf_get_name(item.bufnr)), "item " .. i .. " file")
    H.eq(range.start.line + 1, item.lnum, "item " .. i .. " at the cited line")
    H.ok(vim.startswith(item.text, ("[%d]"):format(source.n)), "item " .. i .. " text: " .. item.text)
  end
  H.eq("quickfix", vim.bo[vim.api.nvim_get_current_buf()].buftype, "the quickfix window is open and focused")
  H.screenshot("neovim-answer-quickfix")
  vim.cmd("cclose")
  H.eq(origin, vim.api.nvim_get_current_win(), "back in the window the question came from")
end)

H.it(":RagQuery! typed in the answer float: the float goes, the list opens below the window asked from, :cc opens there",
  function()
    vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
    local origin = vim.api.nvim_get_current_win()
    local win = ask("RagAsk How long is the frobnicator timeout?")
    H.eq(win, vim.api.nvim_get_current_win(), "the answer float has the focus")
    vim.cmd("RagQuery! frobnicator timeout")
    H.wait_for(function() return vim.bo.buftype == "quickfix" end, 20000, "the quickfix list")
    H.eq({}, H.floats(), "the answer float closed (it covered the list)")
    H.screenshot("neovim-query-quickfix-from-answer")
    local item = vim.fn.getqflist()[1]
    vim.cmd("cc 1")
    H.eq(origin, vim.api.nvim_get_current_win(), ":cc opens the result in the window the question came from")
    H.eq(item.bufnr, vim.api.nvim_get_current_buf(), "the result's file")
    vim.cmd("cclose")
    -- a picker's result chosen with the answer float current (a picker opened from it returns there) opens in a
    -- window of the layout too, not in the float
    win = ask("RagAsk How long is the frobnicator timeout?")
    local chunk = H.request_sync(client, "rag/query", { query = "frobnicator timeout" }).result.chunks[1]
    require("ragls.picker").open(chunk)
    H.eq({}, H.floats(), "the answer float closed")
    H.eq(origin, vim.api.nvim_get_current_win(), "opened in the window the question came from")
    H.eq(chunk.source.path, H.rel(vim.api.nvim_buf_get_name(0)), "the chunk's file")
  end)

H.it("an answer without sources names only the keys that do something in its border", function()
  local view = answer_float.reopen_answer("Is there a GUI?", { answer = "The docs do not say.", sources = {}, citations = {} })
  local footer = vim.iter(vim.api.nvim_win_get_config(view.win).footer or {}):map(function(c) return c[1] end):join("")
  H.eq(" Y yank · r ask again · q close ", footer, "no <CR> open / <C-q> quickfix: there is nothing to open")
  vim.api.nvim_win_close(view.win, true)
end)

H.it("an abstained answer is shown as such", function()
  -- A similarity floor no chunk can reach makes the server abstain; sent the way setup({settings}) is.
  local notify = vim.fn.has("nvim-0.11") == 1 and function(...) return client:notify(...) end or client.notify
  notify("workspace/didChangeConfiguration", { settings = { ragls = { retrieval = { min_similarity = 0.99 } } } })
  local _, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  H.eq(true, result.abstained, "abstained")
  -- said once, by the answer; its sources listed once, as the closest matches
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  H.contains(text, "Not in your docs: ")
  H.eq(nil, text:find("Abstained", 1, true), "no second abstention note")
  H.eq(nil, text:find("do not cover", 1, true), "no second abstention note")
  H.ok(find_line(buf, "### Closest matches"), "closest matches heading")
  H.eq(nil, find_line(buf, "### Sources"), "no sources heading")
  H.eq(#result.sources, #vim.tbl_filter(function(l) return l:match("^%[%d+%] ") ~= nil end,
    vim.api.nvim_buf_get_lines(buf, 0, -1, false)), "each closest passage listed once")
  notify("workspace/didChangeConfiguration", { settings = { ragls = {} } })
end)

H.it("a file whose name holds a newline: its source is one escaped line that still opens the file", function()
  local path = vim.fs.joinpath(H.workspace, "odd\nname.md")
  vim.fn.writefile({ "# Odd name", "", "The quibblewhisk spins counterclockwise." }, path)
  local files_before = H.request_sync(client, "rag/status", vim.empty_dict()).result.folders[1].files
  local notify = vim.fn.has("nvim-0.11") == 1 and function(...) return client:notify(...) end or client.notify
  notify("workspace/didChangeWatchedFiles", { changes = { { uri = vim.uri_from_fname(path), type = 1 } } })
  H.wait_for(function()
    local f = H.request_sync(client, "rag/status", vim.empty_dict()).result.folders[1]
    return f.files > files_before and f.pending == 0 and (f.pendingVectors or 0) == 0
  end, 60000, "the odd file to be indexed")
  local win, buf, result = ask("RagAsk Which way does the quibblewhisk spin?")
  H.eq("odd\nname.md", result.sources[1].path, "the server's path is the real name")
  local label = ("[%d] odd\\nname.md:3 — Odd name"):format(result.sources[1].n)
  local lnum = find_line(buf, label)
  H.ok(lnum, label .. " listed: " .. table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), " | "))
  H.screenshot("neovim-answer-odd-name")
  vim.api.nvim_win_set_cursor(win, { lnum, 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(path, vim.api.nvim_buf_get_name(0), "the file opened")
  H.eq(3, vim.api.nvim_win_get_cursor(0)[1], "at the cited line")
  require("ragls.jumpback").disarm()
end)

H.it("while the server indexes, the pending answer says what the index is doing instead of a bare …", function()
  -- The editor window under the float shows a file of the workspace (its statusline says "ragls" once indexing
  -- ended): set here, not left over from the test before.
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls", bufnr = 0 }) > 0 end, 20000, "README.md attached")
  local progress = require("ragls.progress")
  local function placeholder(view) return vim.api.nvim_buf_get_lines(view.buf, 2, 3, false)[1] end
  -- the $/progress notifications a first index sends (the client's handler feeds them to on_progress)
  -- (the server's messages, docs/protocol.md: "12/80 files", then what the index is built for)
  progress.on_progress({ token = "spec-indexing", value = { kind = "begin", title = "ragls: indexing",
    message = "12/80 files", percentage = 15 } })
  local view = answer_float.answer_view("What is pending?")
  H.eq("_… the index is being built: 12/80 files (15%)_", placeholder(view), "at once")
  -- as tall as its question and placeholder (it stood 70 % of the editor tall around them), its top where a full one's is
  local opened = vim.w[view.win].ragls_opened
  H.eq(vim.api.nvim_win_text_height(view.win, {}).all, vim.api.nvim_win_get_height(view.win), "no empty rows while pending")
  H.ok(opened.height > 5 and vim.api.nvim_win_get_height(view.win) <= 4, "pending height "
    .. vim.api.nvim_win_get_height(view.win) .. " of " .. opened.height)
  H.eq(opened.row, vim.api.nvim_win_get_config(view.win).row, "top row kept")
  progress.on_progress({ token = "spec-indexing", value = { kind = "report",
    message = "for meaning search 120/333 sections", percentage = 36 } })
  H.wait_for(function() return placeholder(view):find("120/333", 1, true) end, 5000, "the placeholder to follow")
  H.eq("_… the index is being built for meaning search 120/333 sections (36%)_", placeholder(view),
    "one sentence, not 'being built: for meaning search'")
  progress.on_progress({ token = "spec-indexing", value = { kind = "report",
    message = "for meaning search 300/333 sections", percentage = 90 } })
  H.wait_for(function() return placeholder(view):find("300/333", 1, true) end, 5000, "the placeholder to follow")
  H.screenshot("neovim-answer-pending-index")
  -- The editor window's statusline under the float (which has the focus) follows the progress too.
  local statusline, laststatus = vim.o.statusline, vim.o.laststatus
  vim.o.laststatus = 2
  vim.o.statusline = "%{v:lua.require'ragls'.statusline()}"
  local status_row = vim.o.lines - vim.o.cmdheight
  local function status_text()
    vim.cmd("redraw")
    local cells = {}
    for col = 1, vim.o.columns do
      cells[col] = vim.fn.screenstring(status_row, col)
    end
    return vim.trim(table.concat(cells))
  end
  H.ok(status_text():find("300/333", 1, true), "statusline while indexing: " .. status_text())
  progress.on_progress({ token = "spec-indexing", value = { kind = "end" } })
  H.eq("ragls", status_text(), "the statusline under the answer float once indexing ended")
  vim.o.statusline, vim.o.laststatus = statusline, laststatus
  -- once indexing ended: a bare …, or after 2 s the seconds waited
  H.wait_for(function()
    return placeholder(view) == "_…_" or placeholder(view):match("^_… waiting for the answer: %d+ s %(q stops it%)_$")
  end, 5000, "no index line once indexing ended")
  H.wait_for(function() return placeholder(view):find("waiting for the answer", 1, true) end, 5000,
    "the seconds waited after 2 s")
  view:append("The answer")
  H.eq(nil, view.pending_timer, "the refresh stops with the first words")
  H.eq("The answer", placeholder(view), "the streamed text replaced it")
  -- it grows with the streamed text, down to the height it opened with (then the text scrolls)
  view:append(("\n\nmore"):rep(6))
  H.eq(3 + 12, vim.api.nvim_win_get_height(view.win), "grown with the text")
  view:append(("\n\nmore"):rep(40))
  H.eq(opened.height, vim.api.nvim_win_get_height(view.win), "never taller than it opened")
  vim.api.nvim_win_close(view.win, true)
end)

H.it("a source on one line entered mid-way is labelled path:line:column, as the CLI prints it", function()
  local function src(sl, sc, el, ec)
    return { n = 1, uri = "file:///x/huge.md", path = "huge.md",
      range = { start = { line = sl, character = sc }, ["end"] = { line = el, character = ec } } }
  end
  -- two chunks of one 300,000-character line were both "huge.md:3"
  H.eq("huge.md:3:1996", ui.source_location(src(2, 1995, 2, 3994)), "mid-line")
  H.eq("huge.md:3", ui.source_location(src(2, 0, 2, 40)), "a whole line")
  H.eq("huge.md:3-4", ui.source_location(src(2, 5, 3, 10)), "several lines")
  local focused = src(0, 0, 9, 0)
  focused.focusRange = src(2, 299995, 2, 300027).range
  H.eq("[1] huge.md:3:299996", ui.source_line(focused), "the focus lines decide")
end)

H.it("asked while the server starts: the float opens at once and says so, then shows the answer", function()
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local old = vim.lsp.get_clients({ name = "ragls" })[1]
  if vim.fn.has("nvim-0.11") == 1 then old:stop() else old.stop() end
  H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls" }) == 0 end, 20000, "the server to stop")
  vim.o.laststatus = 2
  vim.o.statusline = "%{v:lua.require'ragls'.statusline()}"
  vim.cmd("RagAsk How long is the frobnicator timeout?")
  -- At once (before the server answered initialize): the float, saying what it waits for; the statusline too.
  local win = H.floats()[1]
  H.ok(win, "the float opened at once")
  local buf = vim.api.nvim_win_get_buf(win)
  H.ok((vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] or ""):find("^_… starting the server"), "the placeholder: "
    .. (vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] or ""))
  H.eq("ragls: starting the server", require("ragls").statusline(), "the statusline while it starts")
  local footer = vim.iter(vim.api.nvim_win_get_config(win).footer or {}):map(function(c) return c[1] end):join("")
  H.eq(" r ask again · q stop ", footer, "only the keys that act before the answer")
  -- the question reads as a heading from the first moment: its "## " showed until the placeholder's first refresh
  local rows, at = H.screen_row("How long is the frobnicator")
  H.ok(rows[at]:find("│How long is the frobnicator timeout?", 1, true), "no '## ': " .. rows[at])
  H.screenshot("neovim-answer-starting")
  local result = H.wait_for(function() return vim.b[buf].ragls_result end, 90000, "the answer once started")
  H.ok(#result.sources > 0, "answered with sources")
  H.eq(win, H.floats()[1], "in the same float")
  vim.api.nvim_win_close(win, true)
  H.ok(require("ragls").statusline() ~= "ragls: starting the server", "the statusline once started")
  vim.o.statusline = ""
end)

H.it("a code block reads as code without a markdown treesitter: its ``` fences are hidden, its lines kept", function()
  -- A --clean Neovim highlights the float with Vim's markdown syntax, which showed "```python" and "```" raw.
  local path = vim.fs.joinpath(H.workspace, "guide", "frobnicator.md")
  local source = { n = 1, path = "guide/frobnicator.md", uri = vim.uri_from_fname(path), title = "The frobnicator",
    range = { start = { line = 7, character = 0 }, ["end"] = { line = 10, character = 0 } } }
  local answer = table.concat({ "- Raise the timeout in `quillmark.toml` [1]:", "  ```toml", "  [merge]",
    "  frobnicator_timeout = 90", "  ```", "- A merge that runs longer is stopped [1]." }, "\n")
  local view = answer_float.reopen_answer("How do I raise the frobnicator timeout?",
    { answer = answer, sources = { source }, citations = { { n = 1 } }, abstained = false })
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  H.ok(vim.tbl_contains(lines, "  ```toml") and vim.tbl_contains(lines, "  frobnicator_timeout = 90"),
    "the buffer keeps the markdown: " .. table.concat(lines, "\n"))
  H.eq(nil, vim.treesitter.highlighter.active[view.buf], "no treesitter highlighter (as in --clean)")
  -- Each fence line is hidden (Neovim 0.11: conceal_lines; 0.10: its text concealed, the row blank).
  local shown = vim.api.nvim_win_text_height(view.win, {}).all
  if vim.fn.has("nvim-0.11") == 1 then
    H.eq(#lines - 2, shown, "the window shows every line but the two fences")
  end
  local marks = vim.tbl_filter(function(m) return m[4].conceal_lines ~= nil or m[4].conceal == "" end,
    vim.api.nvim_buf_get_extmarks(view.buf, ui.fence_ns, 0, -1, { details = true }))
  H.eq({ "## How do I raise the frobnicator timeout?", "  ```toml", "  ```", "### Sources" },
    vim.tbl_map(function(m) return lines[m[2] + 1] end, marks), "the fence lines (and the headings' \"## \") concealed")
  -- The headings read without their "## " (it showed before the question, the cursor's line, and "### Sources").
  local rows = H.with_ui(function()
    vim.cmd("redraw")
    return H.screen_text()
  end)
  local function row(needle)
    return vim.iter(rows):find(function(r) return r:find(needle, 1, true) end) or ""
  end
  H.ok(row("How do I raise the frobnicator timeout?"):match("│How do I raise") ~= nil, "the question: " .. row("How do I raise"))
  H.ok(row("Sources"):match("│Sources") ~= nil, "the sources' heading: " .. row("Sources"))
  H.screenshot("neovim-answer-code-block")
  vim.api.nvim_win_close(view.win, true)
end)

H.it("with a user's treesitter for markdown, a citation and a source line keep their brackets", function()
  -- Its markdown_inline queries read "[1]" as a shortcut link and conceal the brackets: "... 42 seconds 1."
  local path = vim.fs.joinpath(H.workspace, "guide", "frobnicator.md")
  local source = { n = 1, path = "guide/frobnicator.md", uri = vim.uri_from_fname(path), title = "The frobnicator",
    range = { start = { line = 7, character = 0 }, ["end"] = { line = 10, character = 0 } } }
  local view = answer_float.reopen_answer("How long is the frobnicator timeout?", { answer = "- It defaults to `42` seconds [1].",
    sources = { source }, citations = { { n = 1 } }, abstained = false })
  H.ok(pcall(vim.treesitter.start, view.buf, "markdown"), "Neovim's bundled markdown parser") -- as a FileType autocmd
  vim.api.nvim_win_set_cursor(view.win, { 1, 0 }) -- (the cursor's line is shown unconcealed)
  local rows = H.with_ui(function()
    vim.cmd("redraw")
    return table.concat(H.screen_text(), "\n")
  end)
  H.contains(rows, "- It defaults to 42 seconds\194\160[1].", "the citation, its code's backticks hidden")
  H.contains(rows, "[1] guide/frobnicator.md:8" .. require("ragls.answer_text").SHOWN_RANGE_DASH .. "10", "the source line")
  vim.api.nvim_win_close(view.win, true)
end)

H.it("a source label that wraps is never split inside its location: after a '/' of its path, else whole", function()
  -- 'linebreak' wraps after any 'breakat' character (":", "-", "." too): "[1] …/rollout.md:12-16" at a window's edge
  -- read "…:12-" / "16 — …", "…/x.md:" / "12-16", "huge.md:3:" / "1996". The float wraps a source line itself
  -- (answer_text.wrap_source_line), whatever the user's 'breakat' (a global option: while the float is shown it goes
  -- without ui.NUMBER_BREAKS, and is theirs again once it closes: answer_render_spec.lua).
  local breakat = vim.o.breakat
  local NB = require("ragls.answer_text").SHOWN_RANGE_DASH
  local function answer(path, range)
    local source = { n = 1, path = path, uri = vim.uri_from_fname("/nowhere/" .. path), title = "Rollout",
      range = range or { start = { line = 11, character = 0 }, ["end"] = { line = 16, character = 0 } } }
    return { answer = "It rolls out in waves [1].", sources = { source }, citations = { { n = 1 } } }
  end
  local view = answer_float.reopen_answer("Where is the rollout?", answer("x.md"))
  local width = vim.api.nvim_win_get_width(view.win)
  -- the path fills the first screen row up to its file name, whose ":" and range's "-" fall past the edge
  local dirs = ("d/"):rep(math.floor((width - #"[1] " - #"x.md") / 2))
  view:finish(answer(dirs .. "x.md"))
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return vim.startswith(l, "[1] ") end)
  H.eq({ "[1] " .. dirs, "    x.md:12" .. NB .. "16 — Rollout" }, { lines[at], lines[at + 1] },
    "the path broken after its last '/' that fits, the file and its lines under it")
  local rows = H.with_ui(function()
    vim.cmd("redraw")
    return table.concat(H.screen_text(), "\n")
  end)
  H.contains(rows, "x.md:12" .. NB .. "16 — Rollout", "the location whole on one row")
  -- both parts are the source's (coloured as one; <CR> on either opens it)
  for row = at, at + 1 do
    local marks = vim.api.nvim_buf_get_extmarks(view.buf, -1, { row - 1, 0 }, { row - 1, -1 }, { details = true })
    H.ok(vim.iter(marks):any(function(m) return m[4].line_hl_group == "Directory" end), "a source's colour: " .. row)
  end
  -- a line:column label ("huge.md:3:1996": a chunk of one long line) in a float too narrow for its title
  local mid = { start = { line = 2, character = 1995 }, ["end"] = { line = 2, character = 3994 } }
  local title_words = (" word"):rep(math.floor(width / 5))
  local r = answer("huge.md", mid)
  r.sources[1].title = "Rollout" .. title_words
  view:finish(r)
  lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  at = vim.iter(ipairs(lines)):find(function(_, l) return vim.startswith(l, "[1] ") end)
  H.ok(vim.startswith(lines[at], "[1] huge.md:3:1996 — Rollout word"), lines[at])
  H.ok(lines[at + 1]:match("^    word"), "the title goes on under the path: " .. lines[at + 1])
  for _, l in ipairs(lines) do
    H.ok(vim.fn.strdisplaywidth(l) <= width, ("fits the float (%d columns): %q"):format(width, l))
  end
  vim.api.nvim_win_close(view.win, true)
  H.eq(breakat, vim.o.breakat, "the user's 'breakat' back")
end)

H.it("the answer float follows the editor's size: smaller, its border and \"↓ N\" stay on screen; larger, it widens", function()
  -- It kept the size and top row it opened with: in a smaller editor its bottom (border, keys, "↓ N") was off screen.
  local columns, lines = vim.o.columns, vim.o.lines
  local ok, err = pcall(function()
    vim.o.columns, vim.o.lines = 120, 40
    local win, buf = ask("RagAsk How long is the frobnicator timeout?")
    local function footer()
      return vim.iter(vim.api.nvim_win_get_config(win).footer or {}):map(function(c) return c[1] end):join("")
    end
    local function inside(what)
      local cfg = vim.api.nvim_win_get_config(win)
      H.ok(cfg.row >= 0 and cfg.row + cfg.height + 2 <= vim.o.lines - vim.o.cmdheight,
        ("%s: the float with its border within the %d lines (row %d, height %d)"):format(what, vim.o.lines, cfg.row, cfg.height))
      H.ok(cfg.col >= 0 and cfg.col + cfg.width + 2 <= vim.o.columns, what .. ": within the columns")
      for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do -- source lines wrapped to the new width
        H.ok(vim.fn.strdisplaywidth(l) <= cfg.width or not l:match("^%[%d+%] "), ("%s: %q fits %d"):format(what, l, cfg.width))
      end
      return cfg
    end
    local before = inside("opened")
    vim.o.columns, vim.o.lines = 60, 14
    vim.cmd("doautocmd VimResized")
    local small = inside("smaller")
    H.eq(math.max(40, math.floor(60 * 0.8)), small.width, "the width the float option gives a 60-column editor")
    local below = require("ragls.ui").rows_below(win)
    H.ok(below > 0, "the answer does not fit 14 lines")
    H.ok(vim.startswith(footer(), (" ↓ %d "):format(below)), "\"↓ N\" in the border on screen: " .. footer())
    H.screenshot("neovim-answer-resized-smaller")
    vim.o.columns, vim.o.lines = 160, 48
    vim.cmd("doautocmd VimResized")
    local large = inside("larger")
    H.eq(128, large.width, "80 % of 160 columns")
    H.ok(large.width > before.width and large.height >= before.height, "wider, as tall as its text")
    H.eq(0, require("ragls.ui").rows_below(win), "the whole answer in view again")
    H.ok(vim.endswith(footer(), "q close "), "the keys: " .. footer())
    vim.api.nvim_win_close(win, true)
  end)
  vim.o.columns, vim.o.lines = columns, lines
  assert(ok, err)
end)

H.finish()
