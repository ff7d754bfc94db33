-- :RagQuery, :RagStatus, :RagRebuild and error reporting against the real ragls server (fixture workspace).
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace({ keymaps = { query = "<leader>rq", status = "<leader>rs" } })
local progress = {}
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(args)
    local value = args.data.params.value
    table.insert(progress, { kind = value.kind, title = value.title, delta = value.delta })
  end,
})
local client = H.open_and_wait_indexed("README.md", 3)

H.it("indexing progress arrives as standard LSP work-done progress (LspProgress)", function()
  local ended = H.wait_for(function()
    for _, p in ipairs(progress) do
      if p.kind == "end" and p.title == "ragls: indexing" then
        return true
      end
    end
  end, 20000, "the end of 'ragls: indexing'")
  H.ok(ended, "indexing ended")
  H.eq("begin", progress[1].kind, "first event")
  H.eq("ragls: indexing", progress[1].title, "title")
  for _, p in ipairs(progress) do
    H.eq(nil, p.delta, "no answer deltas in work-done progress")
  end
end)

H.it("keymaps from setup are set buffer-locally when the client attaches", function()
  local q = vim.fn.maparg("<leader>rq", "n", false, true)
  H.eq(1, q.buffer, "buffer-local")
  H.eq("ragls: query", q.desc, "desc")
  H.eq("ragls: status", vim.fn.maparg("<leader>rs", "n", false, true).desc, "status map")
  H.eq("", vim.fn.maparg("<leader>ra", "n"), "ask not mapped (not listed)")
end)

--- The quickfix items `:RagQuery! {query}` fills the (emptied) list with, once its title says it holds them.
local function query_items(query)
  vim.fn.setqflist({}, "r")
  vim.cmd("RagQuery! " .. query)
  return H.wait_for(function()
    local info = vim.fn.getqflist({ title = 1, items = 1 })
    return info.title == "RagQuery: " .. query and #info.items > 0 and info.items
  end, 30000, "quickfix items")
end

H.it(":RagQuery! fills the quickfix list with path:line of the matching section and opens it", function()
  local query = "frobnicator timeout seconds"
  local direct = H.request_sync(client, "rag/query", { query = query, topK = 20 }) -- search_top_k's default
  H.eq(nil, direct.err, "rag/query error")
  local items = query_items(query)
  H.eq(#direct.result.chunks, #items, "one item per chunk")
  local first = items[1]
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(first.bufnr)), "path of the best hit")
  -- The section that states the timeout: the hit's line range must contain that line.
  local target = H.line_of("guide/frobnicator.md", "defaults to 42 seconds")
  H.ok(first.lnum <= target and target <= first.end_lnum,
    ("hit lines %d-%d contain line %d"):format(first.lnum, first.end_lnum, target))
  local src = direct.result.chunks[1].source
  local at = src.focusRange or src.range -- the answering lines when narrower than the chunk
  H.eq(at.start.line + 1, first.lnum, "lnum = (focusRange or range).start.line + 1")
  -- A chunk at the start of its line shows no column (col 0: no "col 1" on every entry).
  local focus = src.focusRange or src.range
  H.eq(focus.start.character == 0 and 0 or focus.start.character + 1, first.col, "col")
  H.contains(first.text, "Frobnicator timeout", "quickfix text has the section title")
  H.contains(first.text, " — ", "title — first line")
  local preview = direct.result.chunks[1].preview -- the server's reading of the focus lines (PROTOCOL Chunk.preview)
  H.eq("string", type(preview), "the server sends a preview")
  H.contains(first.text, " — " .. preview:sub(1, 10), "the quickfix text shows the server's preview")
  local _, headings = first.text:gsub("Frobnicator timeout", "")
  H.eq(1, headings, "the heading once (not again as the first line): " .. first.text)
  H.ok(not first.text:find("##", 1, true), "no markdown heading marks: " .. first.text)
  local qfwin = vim.fn.getqflist({ winid = 1 }).winid
  H.ok(qfwin ~= 0, "quickfix window is open")
end)

H.it(":cc on the first item opens the file at that line", function()
  vim.cmd("cfirst")
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "file")
  H.eq(vim.fn.getqflist()[1].lnum, vim.api.nvim_win_get_cursor(0)[1], "cursor line")
end)

H.it("an invalid request is reported with the server's message and the server keeps answering", function()
  H.notes = {}
  local failed = false
  require("ragls.rpc").request("rag/query", { query = "frobnicator", topK = 0 }, function() end, {
    on_error = function(err)
      failed = err
    end,
  })
  local err = H.wait_for(function()
    return failed
  end, 20000, "the error response")
  H.eq(-32602, err.code, "InvalidParams")
  local notes = H.notes_matching("ragls: search failed: ")
  H.eq(1, #notes, "one notification")
  H.eq(vim.log.levels.ERROR, notes[1].level, "level")
  local again = H.request_sync(client, "rag/query", { query = "backups" })
  H.eq(nil, again.err, "valid request after the error")
  H.ok(#again.result.chunks > 0, "results after the error")
end)

H.it("a search result opens on its answering sentence, mid-line after another; its focus lines highlighted", function()
  local chunks = H.request_sync(client, "rag/query", { query = "what happens when a merge runs out of time", topK = 5 })
    .result.chunks
  local hit = vim.iter(chunks):find(function(c) return c.source.path == "guide/frobnicator.md" end)
  H.ok(hit and type(hit.source.quoteRanges) == "table", "the server says where the sentence starts: "
    .. vim.inspect(hit and hit.source))
  require("ragls.picker").open(hit)
  local row, col0 = unpack(vim.api.nvim_win_get_cursor(0))
  H.eq(H.line_of("guide/frobnicator.md", "A merge that runs out of time"), row, "the sentence's line")
  H.ok(col0 > 0 and vim.startswith(vim.api.nvim_get_current_line():sub(col0 + 1), "A merge that runs out of time"),
    ("on the sentence: column %d of %q"):format(col0, vim.api.nvim_get_current_line()))
  local marks = vim.api.nvim_buf_get_extmarks(0, require("ragls.jump").highlight_ns, 0, -1, { details = true })
  H.eq(hit.source.focusRange.start.line, marks[1] and marks[1][2], "the highlight starts at the focus's first line")
end)

H.it(":RagStatus shows folders, skipped files and the generation backend in a float; q closes it", function()
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd("RagStatus")
  local win = H.wait_for(function()
    return H.floats()[1]
  end, 20000, "status float")
  local buf = vim.api.nvim_win_get_buf(win)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  H.contains(text, "Answers    none")
  H.contains(text, "  3 files · ")
  H.contains(text, "  skipped    ")
  H.contains(text, "\n" .. vim.fn.fnamemodify(vim.fs.normalize(vim.uv.fs_realpath(H.workspace)), ":~") .. "\n")
  H.eq("ragls-status", vim.bo[buf].filetype, "filetype")
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_feedkeys("q", "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed by q")
end)

H.it(":RagRebuild re-indexes and reports files and sections", function()
  H.notes = {}
  vim.cmd("RagRebuild")
  local note = H.wait_for(function()
    return H.notes_matching("ragls: indexed ")[1]
  end, 120000, "rebuild notification")
  H.contains(note.msg, "indexed 3 files, ")
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  H.contains(note.msg, (" %d sections, "):format(status.folders[1].chunks))
end)

H.it(":RagQuery! under a long heading path: the quickfix line shows the passage, the path gives way", function()
  -- Sanic's "Guide > Best practices > Blueprints > Static files — Blu…": the heading path took the line, and three
  -- letters of the passage were left. A page four headings deep, under a long path (two screen lines per entry).
  local rel = "guide/syncing/shared-notebooks-and-conflicts/merge-banners.md"
  vim.fn.mkdir(H.workspace .. "/" .. vim.fs.dirname(rel), "p")
  vim.fn.writefile({ "# Quillmark user guide", "", "## Syncing notes between machines", "",
    "### Conflicts in shared notebooks", "", "#### Dismissing a merge banner", "",
    "Click the banner's Keep mine button to drop the other machine's version of the paragraph.",
    "Shift-click keeps both versions side by side until you delete one of them by hand." },
    H.workspace .. "/" .. rel)
  H.notes = {}
  vim.cmd("RagRebuild")
  H.wait_for(function() return H.notes_matching("ragls: indexed 4 files")[1] end, 120000, "the rebuild")
  vim.o.columns, vim.o.lines = 100, 30
  local query = "how do I dismiss a merge banner"
  local items = query_items(query)
  local first = items[1]
  H.eq(rel, H.rel(vim.api.nvim_buf_get_name(first.bufnr)), "the banner page first")
  -- the section's own heading, then the passage, readable: the start of both sentences
  H.contains(first.text, "Dismissing a merge banner — ")
  H.contains(first.text, "Click the banner's Keep mine button to drop the other machine's")
  H.ok(not first.text:find("Quillmark user guide", 1, true), "the leading headings gave way: " .. first.text)
  local entry = ("%s|%d-%d| %s"):format(rel, first.lnum, first.end_lnum, first.text)
  H.ok(vim.fn.strdisplaywidth(entry) < 2 * vim.o.columns, "two screen lines at most: " .. entry)
  -- The entry's second screen line starts at a word, not inside one ("Click t" / "he banner's Keep mine button")
  local rows, at = H.screen_row(function(r) return vim.startswith(r, rel .. "|") end)
  H.ok(rows[at + 1], "the entry's second line on screen:\n" .. table.concat(rows, "\n"))
  local words = {}
  for w in first.text:gmatch("%S+") do
    words[w] = true
  end
  local last_word, next_word = vim.trim(rows[at]):match("(%S+)$"), rows[at + 1]:match("^%s*(%S+)")
  H.ok(words[last_word] and words[next_word], ("the wrap between %q and %q splits no word:\n%s\n%s"):format(
    last_word, next_word, rows[at], rows[at + 1]))
  H.screenshot("neovim-query-quickfix")
end)

H.it("a converted page's source says its lines count extracted text: the answer float, the picker, the quickfix", function()
  local rel = "guide/pairing.html"
  vim.fn.writefile({ "<html><head><title>Pairing</title></head><body>", "<h1>Pairing a tablet</h1>",
    "<p>Open Settings, choose Devices, and scan the pairing code shown on the tablet.",
    "A pairing code expires after 90 seconds; ask the tablet for a new one when it does.</p>",
    "</body></html>" }, H.workspace .. "/" .. rel)
  H.notes = {}
  vim.cmd("RagRebuild")
  H.wait_for(function() return H.notes_matching("ragls: indexed 5 files")[1] end, 120000, "the rebuild")
  local query = "how long is a pairing code valid"
  local chunks = H.request_sync(client, "rag/query", { query = query, topK = 5 }).result.chunks
  local hit = vim.iter(chunks):find(function(c) return c.source.path == rel end)
  H.ok(hit and hit.source.extractedText == true, "the server marks the page's source: " .. vim.inspect(chunks[1]))
  local entry = require("ragls.picker").format(hit)
  H.ok(entry:find(rel .. ":%d+[%d‑-]* %(extracted text%)"), "the picker's entry: " .. entry)
  vim.o.columns, vim.o.lines = 100, 30
  local _, buf, result = H.ask_float("RagAsk " .. query)
  local source = vim.iter(result.sources):find(function(s) return s.path == rel end)
  H.ok(source, "the page is a source: " .. vim.inspect(result.sources))
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  H.ok(text:find(("[%d] %s:"):format(source.n, rel), 1, true) and text:find(" (extracted text)", 1, true),
    "the float's source line says so:\n" .. text)
  H.screenshot("neovim-answer-extracted-text")
  vim.api.nvim_feedkeys(vim.keycode("<C-q>"), "mx", false)
  local qf = vim.fn.getqflist()
  local idx = vim.iter(ipairs(qf)):find(function(_, i) return i.text:find("^%[" .. source.n .. "%]") end)
  local item = qf[idx]
  H.ok(item and item.text:find("(extracted text)", 1, true), "the quickfix item: " .. vim.inspect(item))
  -- the item is in the extracted text, as <CR> opens it: :cc lands on the cited line of the page's text
  H.ok(vim.api.nvim_buf_get_name(item.bufnr):find("ragls://extracted/", 1, true), vim.api.nvim_buf_get_name(item.bufnr))
  H.eq(source.focusRange.start.line + 1, item.lnum, "the item's line")
  vim.cmd("cc " .. idx)
  H.eq(item.bufnr, vim.api.nvim_get_current_buf(), ":cc opens the extracted text")
  H.screenshot("neovim-answer-quickfix-extracted-text")
  H.eq(item.lnum, vim.api.nvim_win_get_cursor(0)[1], "at the cited line")
  H.ok(vim.api.nvim_get_current_line():find("pairing code", 1, true), vim.api.nvim_get_current_line())
  -- so are rag/query's items (:RagQuery!, a picker's <C-q>)
  local qitem = require("ragls.quickfix").quickfix_items({ hit })[1]
  H.eq(item.bufnr, qitem.bufnr, "rag/query's item: the same extracted text")
  H.eq((hit.source.focusRange or hit.source.range).start.line + 1, qitem.lnum, "at the chunk's line")
  vim.cmd("cclose")
  -- <CR> on its source line opens the text ragls extracted, whose lines the source counts, not the HTML file
  local win
  _, buf, result = H.ask_float("RagAsk " .. query)
  win = vim.fn.bufwinid(buf)
  local lnum = vim.iter(ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false))):find(function(_, l)
    return vim.startswith(l, ("[%d] %s:"):format(source.n, rel))
  end)
  vim.api.nvim_win_set_cursor(win, { lnum, 0 })
  vim.cmd("set nowrap nolinebreak") -- a user's settings: the page's paragraphs are wrapped at words all the same
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq({ true, true }, { vim.wo.wrap, vim.wo.linebreak }, "the extracted text wraps at words")
  vim.cmd("set wrap")
  local fname = vim.fs.normalize(vim.uv.fs_realpath(H.workspace .. "/" .. rel) or (H.workspace .. "/" .. rel))
  local opened = vim.api.nvim_buf_get_name(0)
  H.ok(opened:find("ragls://extracted/", 1, true) and opened:find(rel, 1, true), "the extracted text: " .. opened)
  H.eq(nil, opened:find("ragls://extracted//", 1, true), "named by its path as shown, not the absolute one: " .. opened)
  H.eq(false, vim.bo.modifiable, "read-only")
  H.eq(source.focusRange.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "at the cited line")
  local cited = table.concat(vim.api.nvim_buf_get_lines(0, source.focusRange.start.line,
    source.focusRange["end"].line + 1, false), " ")
  H.ok(cited:find("pairing code", 1, true) and not cited:find("<", 1, true),
    ("the cited lines are the page's text, without its tags: %q (%s)"):format(cited, fname))
  H.screenshot("neovim-extracted-text-opened")
  -- a [n] quoting one of two places of the page (quoteRanges) opens at the place whose words it shares, read from
  -- the extracted text (its lines are the source's), not from the HTML file's lines
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local row = vim.iter(ipairs(lines)):find(function(_, l) return l:find("A pairing code expires", 1, true) end)
  local second = lines[row]:find("A pairing code expires", 1, true) - 1
  local first = lines[row]:find("Open Settings", 1, true) - 1
  local places = { { start = { line = row - 1, character = first }, ["end"] = { line = row - 1, character = second } },
    { start = { line = row - 1, character = second }, ["end"] = { line = row, character = 0 } } }
  -- (with the HTML file open in a buffer of its own, and the extracted text's buffer gone: made again)
  local extracted_buf = vim.api.nvim_get_current_buf()
  vim.cmd.edit(vim.fn.fnameescape(fname))
  vim.api.nvim_buf_delete(extracted_buf, { force = true })
  local answer = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(answer, 0, -1, false, { "A pairing code expires after 90 seconds [1]." })
  local cited = require("ragls.citation").cited_source(vim.tbl_extend("force", source, { quoteRanges = places }),
    answer, 1)
  H.eq(places[2], cited.focusRange, "the [n] of the second sentence opens at it")
  vim.api.nvim_buf_set_lines(answer, 0, -1, false, { "Open Settings and choose Devices [1]." })
  cited = require("ragls.citation").cited_source(vim.tbl_extend("force", source, { quoteRanges = places }), answer, 1)
  H.eq(places[1], cited.focusRange, "the [n] of the first sentence opens at it")
end)

H.it("a folder of many unreadable files: :RagRebuild counts them all, :RagStatus lists 50 and says how many more", function()
  vim.fn.mkdir(H.workspace .. "/blobs", "p")
  for i = 1, 57 do
    local f = assert(io.open(("%s/blobs/blob%02d.md"):format(H.workspace, i), "wb"))
    f:write("x\0\0\0y") -- binary: skipped with its reason
    f:close()
  end
  H.notes = {}
  vim.cmd("RagRebuild")
  local note = H.wait_for(function() return H.notes_matching("ragls: indexed ")[1] end, 120000, "the rebuild")
  H.contains(note.msg, ", 57 skipped (")
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  H.eq(50, #status.folders[1].skipped, "the server lists 50")
  H.eq(7, status.folders[1].skippedMore, "and counts the rest")
  H.close_floats()
  vim.cmd("RagStatus")
  local win = H.wait_for(function() return H.floats()[1] end, 20000, "status float")
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return l == "  skipped    57 files:" end)
  H.ok(at, "the count of every file left out:\n" .. table.concat(lines, "\n"))
  H.eq("    … and 7 more", lines[at + 51], "the rest counted under the 50 listed")
  vim.api.nvim_win_close(win, true)
end)

H.finish()
