-- Answers and sources rendered without a server: source lines and their focus ranges, answer_lines, the chat's
-- wrapped source lines, the [n] under the cursor and what it opens, quickfix items and the pickers' byte columns.
-- The plugin's other server-less pieces: plugin_spec.lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin({ cmd = { "ragls-not-installed-xyz", "serve" } })
local config = require("ragls.config")
local jump = require("ragls.jump")
local answer_float = require("ragls.answer_float")
local ui = require("ragls.ui")
local NB = require("ragls.answer_text").SHOWN_RANGE_DASH -- the range hyphen the float and the chat show

local source = {
  n = 2,
  uri = "file:///ws/guide/frobnicator.md",
  path = "guide/frobnicator.md",
  range = { start = { line = 5, character = 0 }, ["end"] = { line = 10, character = 0 } },
  title = "Frobnicator timeout",
}

H.it("sources render as `[n] path:first-last — title` with 1-based inclusive lines", function()
  H.eq("[2] guide/frobnicator.md:6-10 — Frobnicator timeout", ui.source_line(source), "source line")
  local one = vim.deepcopy(source)
  one.range = { start = { line = 3, character = 0 }, ["end"] = { line = 3, character = 12 } }
  one.title = nil
  H.eq("[2] guide/frobnicator.md:4", ui.source_line(one), "single line, no title")
  local focused = vim.deepcopy(source)
  focused.focusRange = { start = { line = 7, character = 0 }, ["end"] = { line = 8, character = 30 } }
  H.eq("[2] guide/frobnicator.md:8-9 — Frobnicator timeout", ui.source_line(focused), "the focus lines when known")
  -- An extractive answer quoting one chunk at two far places: one entry, both places (`focusRanges`, line order).
  local quoted = vim.deepcopy(focused)
  quoted.focusRange = { start = { line = 21, character = 0 }, ["end"] = { line = 26, character = 0 } }
  quoted.focusRanges = { { start = { line = 3, character = 0 }, ["end"] = { line = 9, character = 5 } },
    quoted.focusRange }
  H.eq("[2] guide/frobnicator.md:4-10, 22-26 — Frobnicator timeout", ui.source_line(quoted), "every quoted place")
  H.eq("[2] guide/frobnicator.md:4" .. NB .. "10, 22" .. NB .. "26 — Frobnicator timeout", ui.source_line(quoted, NB),
    "shown in a wrapped window: each range's hyphen a non-breaking one")
  local lines = ui.answer_lines("Why?", { answer = "A [2]. B [2].", sources = { quoted }, citations = {} })
  H.eq(1, #vim.tbl_filter(function(l) return l:find("[2] ", 1, true) == 1 end, lines), "listed once: " ..
    vim.inspect(lines))
end)

H.it("a [n] of a source quoted at two places opens the place its own item quotes, not the first quote's", function()
  local fname = vim.fs.joinpath(H.workspace, "guide", "frobnicator.md")
  local r = function(a, b, c)
    return { start = { line = a, character = 0 }, ["end"] = { line = b, character = c } }
  end
  local place_a, place_b = r(2, 3, 40), r(13, 14, 30) -- lines 3-4 (what it is), 14-15 (turning it off)
  local result = { model = "none", elapsedMs = 10, citations = {},
    answer = "- Set `frobnicator = false` to turn merging off; Quillmark then keeps the newest copy of each note\n"
      .. "  and moves the older copy to the `.trash` folder [1].\n"
      .. "- The frobnicator is the Quillmark component that merges edits made on two machines into one note [1].",
    sources = { { n = 1, path = "guide/frobnicator.md", uri = vim.uri_from_fname(fname), title = "The frobnicator",
      range = r(0, 15, 0), focusRange = place_a, focusRanges = { place_a, place_b } } } }
  local origin = vim.api.nvim_get_current_win()
  local function follow(pattern)
    local view = answer_float.reopen_answer("What is the frobnicator?", result)
    local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
    for i, l in ipairs(lines) do
      local s = l:find(pattern, 1, true)
      if s then
        local col = l:find("[1]", s, true)
        vim.api.nvim_win_set_cursor(view.win, { i, col })
        answer_float.follow(view.buf)
        H.eq(origin, vim.api.nvim_get_current_win(), "opened in the window the answer came from")
        return vim.api.nvim_win_get_cursor(0)[1]
      end
    end
    error("no line with " .. pattern .. ": " .. vim.inspect(lines))
  end
  -- (the space before a citation a no-break one: the float never wraps between "folder" and "[1]", ragls.code_wrap)
  local NBSP = require("ragls.code_wrap").NBSP
  H.eq(14, follow("`.trash` folder" .. NBSP .. "[1]"), "[1] on the continuation line of the first item: lines 14-15")
  H.eq(3, follow("into one note" .. NBSP .. "[1]"), "[1] of the second item: lines 3-4")
  H.eq("- A quote   that goes on [2].", require("ragls.citation").item_text(
    { "Intro.", "", "- A quote", "  that goes on [2].", "- Next [3]." }, 4),
    "item_text: the list item with its continuation line, not the next item")
  vim.cmd("bwipeout! " .. vim.fn.bufnr(fname))
end)

H.it("answer_lines shows abstention, answer, and maps source lines", function()
  local lines, by_line = ui.answer_lines("How long?", {
    answer = "It is 42 seconds [2].",
    sources = { source },
    abstained = true,
    model = "none",
    elapsedMs = 1500,
  })
  H.eq("## How long?", lines[1], "heading")
  local text = table.concat(lines, "\n")
  -- the answer says why itself ("Not in your docs: ..."): no second note; its sources are the closest matches
  H.ok(not text:find("Abstained", 1, true), "no second abstention note")
  H.contains(text, "### Closest matches")
  H.ok(not text:find("### Sources", 1, true), "sources listed once, as closest matches")
  local idx
  for i, l in ipairs(lines) do
    if l == "[2] guide/frobnicator.md:6" .. NB .. "10 — Frobnicator timeout" then
      idx = i
    end
  end
  H.ok(idx, "source line present")
  H.eq(source, by_line[idx], "line maps to its source")
  H.eq("_no answer (no LLM call) · 1.5 s_", lines[#lines], "footer: an abstention names no model")
end)

H.it("answer_lines marks a cited source whose text does not support the sentence", function()
  local other = vim.deepcopy(source)
  other.n = 3
  local lines = ui.answer_lines("How long?", {
    answer = "It is 42 seconds [2]. Bananas are yellow [3].",
    sources = { source, other },
    citations = { { n = 2, supported = true }, { n = 3, supported = false } },
  })
  local text = table.concat(lines, "\n")
  H.contains(text, "[2] guide/frobnicator.md:6" .. NB .. "10 — Frobnicator timeout\n")
  H.contains(text, "[3] guide/frobnicator.md:6" .. NB .. "10 — Frobnicator timeout  (citation not supported by this text)")
end)

H.it("the chat wraps a source line wider than its window after a '/' of its path, each part the source's", function()
  -- (Neovim's 'linebreak' broke such a line after any 'breakat' character: "…/x.md:" / "12-16", "x." / "md:12-16")
  local chat = require("ragls.chat")
  local path = ("docs/"):rep(12) .. "x.md"
  local source = { n = 1, path = path, uri = vim.uri_from_fname("/nowhere/" .. path), title = "Rollout",
    range = { start = { line = 11, character = 0 }, ["end"] = { line = 16, character = 0 } } }
  chat.thread.turns = {
    { question = "Where is the rollout?", text = "", status = "done", result = { answer = "In waves [1].",
      sources = { source }, citations = { { n = 1, supported = true } }, model = "extractive", elapsedMs = 10 } },
    { question = "And after?", text = "", status = "done", result = { answer = "Nothing [1].", sources = { source },
      citations = { { n = 1, supported = true } }, model = "extractive", elapsedMs = 10 } },
  }
  config.values.chat.layout = "vsplit"
  local win = chat.open()
  vim.api.nvim_win_set_width(win, 40)
  chat.render() -- (WinResized does this in a running Neovim; a headless `-l` script has no main loop)
  local lines = vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return vim.startswith(l, "[1] ") end)
  H.eq({ "[1] docs/docs/docs/docs/docs/docs/docs/", "    docs/docs/docs/docs/docs/x.md:12" .. NB .. "16", "    — Rollout" },
    { lines[at], lines[at + 1], lines[at + 2] }, "the path after a '/' that fits, the rest hanging under it")
  for l = at, at + 2 do
    H.eq(source, chat.thread.line_source[l], "line " .. l .. " is the source's")
    H.eq(1, chat.thread.line_turn[l], "line " .. l .. " is the first turn's")
  end
  H.eq("## And after?", lines[chat.thread.heading_line[2]], "the second turn's heading line, after the wrap")
  vim.api.nvim_win_close(win, true)
  config.values.chat.layout = "vsplit"
  chat.thread.turns = {}
end)

H.it("a code line wider than the chat breaks where code may break, never inside a name; a yank gets it whole", function()
  -- (the window wrapped it at its edge: "app.config.from_object('y" / "ourapplication.default_settings')")
  local chat = require("ragls.chat")
  local code = "  app.config.from_object('yourapplication.default_settings')"
  local call = "  app.register_blueprint(simple_page, url_prefix='/pages', subdomain='admin')"
  local short = '  app.config.from_file("config.json", load=json.load, text=False)' -- (each word fits a part)
  chat.thread.turns = { { question = "How do I load the default settings?", text = "", status = "done", result = {
    answer = table.concat({ "- Load them from a module [1]:", "  ```python", code, call, short, "  ```", "- Done [1]." },
      "\n"),
    sources = { source }, citations = { { n = 2, supported = true } }, model = "extractive", elapsedMs = 10 } } }
  config.values.chat.layout = "vsplit"
  local win = chat.open()
  vim.api.nvim_win_set_width(win, 44)
  chat.render() -- (WinResized does this in a running Neovim)
  local lines = vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return vim.startswith(l, "  app.config") end)
  H.eq({ "  app.config.from_object(", "      'yourapplication.default_settings')",
    "  app.register_blueprint(simple_page, ", "      url_prefix='/pages', ", "      subdomain='admin')" },
    { lines[at], lines[at + 1], lines[at + 2], lines[at + 3], lines[at + 4] },
    "broken after '(' and ', ' (never inside the string), the rest hanging by 4")
  H.eq({ '  app.config.from_file("config.json", ', "      load=json.load, text=False)" }, { lines[at + 5], lines[at + 6] },
    "at a space: a word that fits a part goes there whole")
  H.eq({ '  app.config.from_file("config.json", ', "      load=json.load)" },
    require("ragls.code_wrap").split('  app.config.from_file("config.json", load=json.load)', 48),
    "not at the last break that fits: 'load=json' / '.load)'")
  for _, l in ipairs(lines) do
    H.ok(vim.fn.strdisplaywidth(l) <= 44, "within the window: " .. l)
  end
  local rows = H.with_ui(function()
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_cursor(win, { at, 0 })
    vim.cmd("redraw")
    return table.concat(H.screen_text(), "\n")
  end)
  H.contains(rows, "'yourapplication.default_settings')", "the name whole on the screen")
  -- a yank of the parts (linewise, or from a part to the next) gets the lines as the answer has them
  vim.api.nvim_win_set_cursor(win, { at, 0 })
  vim.cmd("normal! yj")
  H.eq(code .. "\n", vim.fn.getreg('"'), "yj over the two parts: the line")
  H.eq(code .. "\n", vim.fn.getreg("0"), "register 0 too")
  vim.cmd("normal! \"a5yy")
  H.eq(code .. "\n" .. call .. "\n", vim.fn.getreg("a"), "5yy into a named register: both lines")
  vim.cmd("normal! 0y$")
  H.eq("  app.config.from_object(", vim.fn.getreg('"'), "y$ within one part: as shown")
  vim.api.nvim_win_close(win, true)
  chat.thread.turns = {}
end)

H.it("a citation stays on the row of the word before it; a yank gives the answer's space back", function()
  -- ('linebreak' broke at the space before it: "… the parent's URL prefix" / "[1]." on a row of its own)
  local columns = vim.o.columns
  vim.o.columns = 80 -- the float: 64 columns; the sentence below ends at its 65th with "[1]."
  local sentence = "- Child URLs will be prefixed with the URL prefix of its parent [1]."
  local view = answer_float.reopen_answer("Nested?", { answer = sentence, sources = { source },
    citations = { { n = 2 } }, model = "extractive", elapsedMs = 3 })
  local width = vim.api.nvim_win_get_width(view.win)
  H.ok(#sentence - #"[1]." <= width and #sentence > width, ("only '[1].' past the edge (%d columns)"):format(width))
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return vim.startswith(l, "- Child URLs") end)
  H.eq("- Child URLs will be prefixed with the URL prefix of its parent\194\160[1].", lines[at], "glued")
  local rows = H.with_ui(function()
    vim.cmd("redraw")
    return H.screen_text()
  end)
  H.ok(vim.iter(rows):any(function(r) return r:find("parent\194\160[1].", 1, true) ~= nil end),
    "'parent [1].' on one row: " .. table.concat(rows, "\n"))
  vim.api.nvim_win_set_cursor(view.win, { at, 0 })
  vim.cmd("normal! yy")
  H.eq(sentence .. "\n", vim.fn.getreg('"'), "yy: the answer's text, an ASCII space")
  vim.api.nvim_win_close(view.win, true)
  vim.o.columns = columns
end)

H.it("citation_at finds the [n] under or nearest the cursor", function()
  local line = "Merges time out [1] after 42 s [12]."
  H.eq(1, ui.citation_at(line, 18), "inside [1]")
  H.eq(12, ui.citation_at(line, 34), "inside [12]")
  H.eq(12, ui.citation_at(line, 30), "nearest")
  H.eq(nil, ui.citation_at("no citations", 3), "none")
end)

H.it("quickfix items: absolute file, 1-based line/col, `title — first line` without repeating the heading", function()
  local columns = vim.o.columns
  vim.o.columns = 250 -- room for every text below beside this file's long temporary path (cut to fit: next test)
  local items = ui.quickfix_items({
    { id = "c1", score = 0.9, text = "## Frobnicator timeout\n\nEach merge must finish.\nMore.", source = source },
  })
  H.eq(1, #items, "one item")
  H.eq(vim.uri_to_fname(source.uri), items[1].filename, "filename")
  H.eq(6, items[1].lnum, "lnum")
  H.eq(0, items[1].col, "no column for a chunk at the start of its line (quickfix shows no 'col 1')")
  H.eq("Frobnicator timeout — Each merge must finish.", items[1].text, "text")
  -- The server's title is the heading path; the chunk's own heading is its last part: shown once.
  local nested = vim.tbl_extend("force", source, { title = "The frobnicator > Frobnicator timeout" })
  items = ui.quickfix_items({ { id = "c1", score = 0.9, text = "## Frobnicator timeout\n\nEach merge must finish.",
    source = nested } })
  H.eq("The frobnicator > Frobnicator timeout — Each merge must finish.", items[1].text, "heading path, heading once")
  -- reST: a heading line with its underline.
  items = ui.quickfix_items({ { id = "c2", score = 0.9, text = "Retries\n=======\n\nThree attempts.",
    source = vim.tbl_extend("force", source, { title = "Guide > Retries" }) } })
  H.eq("Guide > Retries — Three attempts.", items[1].text, "reST heading skipped")
  -- With focus lines below the chunk's start: their text, the line the item names (not the chunk's first line).
  local focused = vim.tbl_extend("force", source, {
    focusRange = { start = { line = 8, character = 0 }, ["end"] = { line = 9, character = 10 } } })
  items = ui.quickfix_items({ { id = "c3", score = 0.9, source = focused,
    text = "## Frobnicator timeout\n\nEach merge must finish.\nThe timeout is\n  42 seconds.\nMore." } })
  H.eq(9, items[1].lnum, "lnum of the focus")
  H.eq("Frobnicator timeout — The timeout is 42 seconds.", items[1].text, "the focus lines' text")
  -- A newer server's preview (the focus lines read as text: a link's label, no emphasis marks) is shown instead.
  items = ui.quickfix_items({ { id = "c4", score = 0.9, source = focused, preview = "The timeout is 42 seconds (see merging).",
    text = "## Frobnicator timeout\n\nEach merge must finish.\nThe **timeout** is\n  42 seconds (see [merging](merge.md)).\nMore." } })
  H.eq("Frobnicator timeout — The timeout is 42 seconds (see merging).", items[1].text, "the server's preview")
  vim.o.columns = columns
end)

H.it("quickfix column is a byte column when a chunk starts mid-line in non-ASCII text", function()
  local path = vim.fn.tempname() .. ".md"
  local prefix = string.rep("é😀 ", 10) -- per repeat: 4 UTF-16 units, 7 bytes
  vim.fn.writefile({ "# Title", prefix .. "GIRAFFE and more" }, path)
  local chunk_source = {
    uri = vim.uri_from_fname(path), path = "x.md",
    range = { start = { line = 1, character = 40 }, ["end"] = { line = 1, character = 56 } },
  }
  local items = ui.quickfix_items({ { id = "c", score = 1, text = "GIRAFFE and more", source = chunk_source } })
  H.eq(71, items[1].col, "byte column of GIRAFFE")
  H.eq("GIRAFFE", vim.fn.readfile(path)[2]:sub(items[1].col, items[1].col + 6), "the chunk's first word")
  os.remove(path)
end)

H.it("pickers and RagAsk's quickfix place a mid-line source at its byte column, not its UTF-16 one", function()
  -- PROTOCOL characters count UTF-16 units ("é😀 " = 4 units, 7 bytes); Neovim's columns are bytes.
  local path = vim.fn.tempname() .. ".md"
  local prefix = string.rep("é😀 ", 10)
  vim.fn.writefile({ "# Title", prefix .. "GIRAFFE and more" }, path)
  local mid = { start = { line = 1, character = 40 }, ["end"] = { line = 1, character = 56 } }
  local chunk = { id = "c", score = 1, text = "# Title\n" .. prefix .. "GIRAFFE and more",
    source = { uri = vim.uri_from_fname(path), path = "x.md", title = "Title",
      range = { start = { line = 0, character = 0 }, ["end"] = { line = 1, character = 56 } }, focusRange = mid } }
  H.eq({ 2, 70 }, { jump.source_start(chunk.source) }, "line and 0-based byte column of GIRAFFE")
  local entry = require("ragls.picker_telescope").telescope_entry(chunk)
  H.eq({ 2, 70 }, { entry.lnum, entry.col }, "telescope: the focus line, col for nvim_win_set_cursor")
  H.eq({ 2, 70 }, require("ragls.picker_snacks").snacks_item(1, chunk).pos, "snacks: pos {line, byte col}")
  H.eq(path .. ":2:71:", require("ragls.picker_fzf").fzf_location(chunk),
    "fzf-lua: path:line:col (1-based bytes, as grep)")
  -- Where each lands in the real file: the cursor on the cited word.
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  vim.api.nvim_win_set_cursor(0, { entry.lnum, entry.col })
  H.eq("GIRAFFE", vim.fn.expand("<cword>"), "the cursor at telescope's entry is on the cited word")
  -- A RagAsk source of a selection (its buffer, no file): the column from the buffer's line.
  local sel = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(sel, 0, -1, false, { prefix .. "ZEBRA here" })
  local n = ui.quickfix_sources("q?", { sources = {
    { n = 1, bufnr = sel, path = "selection", uri = "ragls:selection",
      range = { start = { line = 0, character = 40 }, ["end"] = { line = 0, character = 50 } } },
    vim.tbl_extend("force", chunk.source, { n = 2 }) } })
  H.eq(2, n, "two quickfix items")
  local qf = vim.fn.getqflist()
  H.eq({ 71, 71 }, { qf[1].col, qf[2].col }, "quickfix cols: 1-based bytes")
  H.eq("ZEBRA", vim.api.nvim_buf_get_lines(sel, 0, 1, false)[1]:sub(qf[1].col, qf[1].col + 4), "selection's word")
  vim.cmd("cclose")
  vim.cmd("bwipeout! " .. vim.fn.bufnr(path))
  os.remove(path)
end)

H.it("a source's lines come from its own buffer, never from one whose name contains its path", function()
  -- bufnr() takes a file pattern: "/d/a.md" found the buffer of "/d/a.md.orig" when a.md had none (and of
  -- "/x/d/a.md" too), so a source's column, end and cited place were read from another file's unsaved lines.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local path, other = vim.fs.joinpath(dir, "a.md"), vim.fs.joinpath(dir, "a.md.orig")
  vim.fn.writefile({ "# A", "abc GIRAFFE roams the plains.", "", "Lions sleep all day." }, path)
  vim.fn.writefile({}, other)
  local decoy = vim.fn.bufadd(other)
  vim.fn.bufload(decoy)
  vim.api.nvim_buf_set_lines(decoy, 0, -1, false,
    { "# Orig", "é😀 GIRAFFE and a much longer line of the other file", "", "Giraffes eat leaves." })
  H.eq(decoy, vim.fn.bufnr(path), "the pattern lookup settles for the other file's buffer")
  H.eq(-1, vim.fn.bufnr("^" .. path .. "$"), "which is not a.md's")
  local at = function(a, b, c, d)
    return { start = { line = a, character = b }, ["end"] = { line = c, character = d } }
  end
  local source = { n = 1, uri = vim.uri_from_fname(path), path = "a.md", title = "A", range = at(0, 0, 3, 20),
    focusRange = at(1, 4, 1, 29) }
  H.eq({ 2, 4 }, { jump.source_start(source) }, "GIRAFFE's byte column in a.md (4; the other line's is 7)")
  H.eq({ 2, 29 }, { jump.source_end(source) }, "the length of a.md's line 2")
  local places = vim.tbl_extend("force", source, { focusRanges = { at(1, 0, 1, 29), at(3, 0, 3, 20) } })
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "Lions sleep all day [1]." })
  H.eq(3, ui.cited_source(places, buf, 1).focusRange.start.line, "[1] opens a.md's line about lions")
  -- a.md's own buffer, once there, is read (its unsaved lines too)
  local own = vim.fn.bufadd(path)
  vim.fn.bufload(own)
  vim.api.nvim_buf_set_lines(own, 1, 2, false, { "é😀 GIRAFFE roams the plains." })
  H.eq({ 2, 7 }, { jump.source_start(source) }, "the byte column in a.md's buffer")
  vim.cmd("bwipeout! " .. own .. " " .. decoy)
  vim.api.nvim_buf_delete(buf, { force = true })
  vim.fn.delete(dir, "rf")
end)

H.it("quickfix: a source quoted at two places is two items; a long preview stays on one screen line", function()
  local r = function(a, b, c)
    return { start = { line = a, character = 0 }, ["end"] = { line = b, character = c } }
  end
  local n = ui.quickfix_sources("q?", { sources = {
    { n = 1, path = "docs/calibration.md", uri = "file:///nowhere/docs/calibration.md", title = "Calibration",
      range = r(0, 40, 0), focusRange = r(3, 9, 5), focusRanges = { r(3, 9, 5), r(21, 26, 0) } } } })
  H.eq(2, n, "one item per quoted place")
  local qf = vim.fn.getqflist()
  H.eq({ { 4, 10 }, { 22, 26 } }, { { qf[1].lnum, qf[1].end_lnum }, { qf[2].lnum, qf[2].end_lnum } },
    "the places of the label docs/calibration.md:4-10, 22-26")
  H.eq({ "[1] Calibration", "[1] Calibration" }, { qf[1].text, qf[2].text }, "both name the source")
  vim.cmd("cclose")
  local long = ("The frobnicator merges edits made on two machines into one note. "):rep(4)
  local items = ui.quickfix_items({ { id = "c", score = 1, text = "# Frob\n\n" .. long,
    source = { path = "guide/frobnicator.md", uri = "file:///nowhere/guide/frobnicator.md", title = "Frob",
      range = r(2, 2, 80) } } })
  local shown = "guide/frobnicator.md|3| " .. items[1].text
  H.eq(true, vim.fn.strdisplaywidth(shown) < vim.o.columns, "one screen line: " .. shown)
  H.eq("…", vim.fn.strcharpart(items[1].text, vim.fn.strchars(items[1].text) - 1), "cut text ends in …")
end)

H.it("<CR> on an answer line without [n] (a code line under a bullet) follows its item's citation", function()
  local at = require("ragls.citation").item_citation
  local lines = {
    "- It is also possible to load configuration from a file, for example TOML [2]:",
    "  ```",
    "  app.config.from_file(\"config.toml\", load=tomllib.load, text=False)",
    "  ```",
    "- Other methods load from individual files [1].",
    "",
    "A paragraph wrapped by hand, the first line",
    "without its citation, which ends the sentence [3]. Then [4].",
  }
  H.eq(2, at(lines, 1, 3), "on the bullet's line: its [n]")
  H.eq(2, at(lines, 3, 5), "a code line under the bullet: the bullet's [n] above")
  H.eq(1, at(lines, 5, 1), "the next bullet: its own")
  H.eq(nil, at(lines, 6, 1), "a blank line cites nothing")
  H.eq(3, at(lines, 7, 1), "a wrapped sentence: the first [n] after it in its paragraph")
  H.eq(4, at(lines, 8, 58), "on a line with several: the nearest")
end)

H.it("a long answer's float says how much is below the fold ('↓ N') until it is scrolled to its end", function()
  local items = {}
  for i = 1, 40 do
    table.insert(items, ("- Step %d of the long procedure [1]."):format(i))
  end
  local view = answer_float.reopen_answer("How is it done?", { answer = table.concat(items, "\n"),
    sources = { source }, citations = { { n = 1 } } })
  local function footer()
    local cfg = vim.api.nvim_win_get_config(view.win)
    return vim.iter(cfg.footer or {}):map(function(c) return c[1] end):join(""), cfg.footer_pos
  end
  local below = ui.rows_below(view.win)
  H.ok(below > 0, "rows below the fold: " .. below)
  local text, pos = footer()
  H.eq(("↓ %d"):format(below), vim.trim(text:match("^ ↓ %d+ ") or ""), "said at the border's left: " .. text)
  H.ok(vim.endswith(text, "q close "), "the keys still at its right: " .. text)
  H.eq({ vim.api.nvim_win_get_width(view.win), "left" }, { vim.fn.strdisplaywidth(text), pos }, "across the border")
  H.screenshot("neovim-answer-more-below")
  vim.api.nvim_win_call(view.win, function() vim.cmd("normal! G") end)
  view:show_keys(view.keys_kind) -- (WinScrolled does this in a running Neovim; a headless `-l` script has no main loop)
  text, pos = footer()
  H.eq({ 0, "right" }, { ui.rows_below(view.win), pos }, "scrolled to its end")
  H.ok(not text:find("↓", 1, true) and vim.endswith(text, "q close "), "only the keys: " .. text)
  vim.api.nvim_win_close(view.win, true)
end)

H.it("a number at the float's edge stays whole ('0.' / '07'); the user's 'breakat' comes back when it closes", function()
  -- 'linebreak' wraps after any 'breakat' character, "." among them, and 'breakat' is a global option: while an
  -- answer float is the current window it goes without the characters a number holds (ui.NUMBER_BREAKS).
  local users = vim.o.breakat .. "%" -- a user's own value
  vim.o.breakat = users
  local origin = vim.api.nvim_get_current_win()
  local view = answer_float.reopen_answer("How high did it rise?", { answer = "x", sources = {}, citations = {} })
  local width = vim.api.nvim_win_get_width(view.win)
  -- the "0." of "0.07" fills the first screen row's last two cells
  local long = ("a"):rep(width - 3)
  view:finish({ answer = long .. " 0.07 per cent, from 2026-12-07 at 12:30.", sources = {}, citations = {} })
  H.eq(view.win, vim.api.nvim_get_current_win(), "the float is current")
  H.eq(" \t!@*;?%", vim.o.breakat, "'breakat' without . , : / - + while the float is current")
  local rows, at = H.screen_row("07 per cent")
  H.ok(rows[at]:find("│0.07 per cent, from 2026-12-07 at 12:30.", 1, true), "the number whole, at its row's start: "
    .. table.concat(rows, "\n", at - 1, at))
  H.ok(rows[at - 1]:find(long .. " *│"), "the word before it on the row above: " .. rows[at - 1])
  -- Moving to another window while the float is shown keeps it: each move rewrapped the user's own 'linebreak'
  -- windows (a split beside :RagChat's) when it went back and forth.
  vim.api.nvim_set_current_win(origin)
  H.eq(" \t!@*;?%", vim.o.breakat, "the same in another window while the float is shown")
  vim.api.nvim_set_current_win(view.win)
  H.eq(" \t!@*;?%", vim.o.breakat, "and back in the float")
  vim.api.nvim_win_close(view.win, true)
  H.eq(users, vim.o.breakat, "the user's 'breakat' back once the float closed")
  vim.cmd("tabnew")
  view = answer_float.reopen_answer("How high did it rise?", { answer = "0.07", sources = {}, citations = {} })
  vim.cmd("tabprevious")
  H.eq(users, vim.o.breakat, "the user's in a tab page that shows no answer")
  vim.cmd("tabnext")
  H.eq(" \t!@*;?%", vim.o.breakat, "not theirs back in the answer's tab page")
  vim.cmd("tabclose")
  H.eq(users, vim.o.breakat, "the user's once that tab page closed")
  -- a value the user sets while the float is current stays
  view = answer_float.reopen_answer("How high did it rise?", { answer = "0.07", sources = {}, citations = {} })
  vim.o.breakat = " "
  vim.api.nvim_win_close(view.win, true)
  H.eq(" ", vim.o.breakat, "the user's new value kept")
  vim.o.breakat = users:sub(1, -2)
end)

H.finish()
