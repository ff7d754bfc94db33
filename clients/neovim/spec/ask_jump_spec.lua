-- :RagAsk against the real ragls server with generation backend `none` (extractive answers, no LLM): opening a
-- source from the answer float (<CR> on a source line or a [n] citation), the highlight of its lines, <C-o> back
-- to the answer and :RagLast. The float itself: ask_spec.lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
H.open_and_wait_indexed("README.md", 3)
local jump = require("ragls.jump")

--- Run :RagAsk (with an optional range prefix) and wait for the finished answer float.
local ask = H.ask_float
local shown, find_line, frobnicator_source = H.shown_source, H.find_line, H.frobnicator_source

H.it("<CR> on a source line opens the file at the start of its range", function()
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  local source = frobnicator_source(result)
  vim.api.nvim_win_set_cursor(win, { find_line(buf, shown(source)), 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "file opened")
  H.eq("guide/frobnicator.md", vim.fn.bufname("%"), "named as :edit names it (the statusline had the absolute path)")
  H.eq((source.focusRange or source.range).start.line + 1, vim.api.nvim_win_get_cursor(0)[1],
    "cursor on the first line of the focus lines (else the range)")
end)

H.it("<CR> on a [n] citation in the answer opens source n", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  local lnum, col, n
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s, _, num = l:find("%[(%d+)%]")
    if s and not l:find("^%[%d+%] ") then -- a citation in the text, not a source line
      lnum, col, n = i, s, tonumber(num)
      break
    end
  end
  H.ok(lnum, "the answer cites a source: " .. result.answer)
  local source = H.last_source(result.sources, function(s) return s.n == n end)
  H.ok(source, ("source [%d] exists"):format(n))
  vim.api.nvim_win_set_cursor(win, { lnum, col })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  H.eq(source.path, H.rel(vim.api.nvim_buf_get_name(0)), "file of source [n]")
  H.eq((source.focusRange or source.range).start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "line of source [n]")
end)

H.it("<CR> on a [n] lands on the sentence its answer item quotes, also mid-line after another sentence", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local win, buf, result = ask("RagAsk What happens when a merge runs out of time?")
  local lnum, col
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = l:find("%[1%]")
    if s and l:find("runs out of time", 1, true) and not l:find("^%[%d+%] ") then
      lnum, col = i, s
      break
    end
  end
  H.ok(lnum, "the answer quotes the retry sentence with [1]: " .. result.answer)
  local source = vim.iter(result.sources):find(function(s) return s.n == 1 end)
  H.ok(type(source.quoteRanges) == "table" and #source.quoteRanges > 1,
    "the server lists each quote of [1]: " .. vim.inspect(source))
  vim.api.nvim_win_set_cursor(win, { lnum, col - 1 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "the file of [1]")
  local row, col0 = unpack(vim.api.nvim_win_get_cursor(0))
  H.eq(H.line_of("guide/frobnicator.md", "A merge that runs out of time"), row, "the quoted sentence's line")
  local line = vim.api.nvim_get_current_line()
  H.ok(col0 > 0 and vim.startswith(line:sub(col0 + 1), "A merge that runs out of time"),
    ("the cursor on the quoted sentence, after the one before it: %q at column %d"):format(line, col0))
  H.ok(row > source.focusRange.start.line + 1, "not the first of the cited lines")
end)

H.it("jumping to a source highlights its lines with a transient extmark; :RagLast reopens the answer", function()
  require("ragls.config").values.highlight_ms = 600
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  local source = frobnicator_source(result)
  H.ok(source, "frobnicator source")
  vim.api.nvim_win_set_cursor(win, { find_line(buf, shown(source)), 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  local file_buf = vim.api.nvim_get_current_buf()
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(file_buf)), "jumped")
  local marks = vim.api.nvim_buf_get_extmarks(file_buf, jump.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, "one highlight")
  local _, row, _, details = unpack(marks[1])
  local focus = source.focusRange or source.range
  H.eq(focus.start.line, row, "starts at the source's first (focus) line")
  local last = math.max(focus.start.line, focus["end"].line - ((focus["end"].character == 0) and 1 or 0))
  H.eq(last + 1, details.end_row, "ends after the source's last line")
  H.eq("RaglsSource", details.hl_group, "highlight group")
  H.wait_for(function()
    return #vim.api.nvim_buf_get_extmarks(file_buf, jump.highlight_ns, 0, -1, {}) == 0
  end, 5000, "the highlight to go away")
  vim.cmd("RagLast")
  local reopened = H.wait_for(function() return H.floats()[1] end, 5000, "the reopened answer")
  local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(reopened), 0, -1, false), "\n")
  H.contains(text, "## How long is the frobnicator timeout?")
  H.ok(find_line(vim.api.nvim_win_get_buf(reopened), shown(source)), "the source listed: " .. text)
  vim.api.nvim_win_close(reopened, true)
end)

H.it("a source far down a file opens with its lines in view, centred, not on the window's last row", function()
  local lines = {}
  for i = 1, 300 do
    lines[i] = ("line %d of a long page"):format(i)
  end
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.cmd("only")
  local source = { bufnr = buf, path = "[selection]", range = { start = { line = 0, character = 0 },
    ["end"] = { line = 299, character = 0 } }, focusRange = { start = { line = 199, character = 0 },
    ["end"] = { line = 204, character = 20 } } }
  H.ok(jump.jump_to_source(source), "opened")
  H.eq(200, vim.api.nvim_win_get_cursor(0)[1], "the cursor on the focus's first line")
  local top, bottom, height = vim.fn.line("w0"), vim.fn.line("w$"), vim.api.nvim_win_get_height(0)
  H.ok(top <= 200 and bottom >= 205, ("lines 200-205 in view: %d-%d"):format(top, bottom))
  H.ok(200 - top >= math.floor((height - 6) / 2) - 1, ("centred: the window shows %d-%d of %d rows"):format(top, bottom,
    height))
  -- lines already in view: the window does not move
  vim.fn.winrestview({ topline = 190 })
  source.focusRange = { start = { line = 194, character = 0 }, ["end"] = { line = 195, character = 0 } }
  jump.jump_to_source(source)
  H.eq(190, vim.fn.line("w0"), "no scroll for lines in view")
  vim.api.nvim_buf_delete(buf, { force = true })
end)

H.it("<C-o> from a source opened from the answer float brings the answer float back", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local origin_win, origin_buf = vim.api.nvim_get_current_win(), vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  require("ragls.config").values.highlight_ms = 0 -- stays for the screenshot
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  local source = frobnicator_source(result)
  local source_lnum = find_line(buf, shown(source))
  vim.api.nvim_win_set_cursor(win, { source_lnum, 0 })
  H.screenshot("neovim-answer-float")
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "jumped to the source")
  H.eq(0, #H.floats(), "no float while reading the source")
  H.screenshot("neovim-source-highlight")
  require("ragls.config").values.highlight_ms = 3000

  vim.api.nvim_feedkeys(vim.keycode("<C-o>"), "nx", false)
  local back = H.wait_for(function() return H.floats()[1] end, 5000, "the answer float to come back")
  H.eq(back, vim.api.nvim_get_current_win(), "the float has focus")
  local back_buf = vim.api.nvim_win_get_buf(back)
  H.eq(false, vim.api.nvim_buf_is_valid(buf), "a new float (the old one's buffer was wiped)")
  local lines = vim.api.nvim_buf_get_lines(back_buf, 0, -1, false)
  H.eq("## How long is the frobnicator timeout?", lines[1], "the same answer")
  H.eq(find_line(back_buf, shown(source)), vim.api.nvim_win_get_cursor(back)[1], "cursor on the source it was left from")
  H.eq(origin_buf, vim.api.nvim_win_get_buf(origin_win), "behind it, the window is back in README.md")
  H.eq(2, vim.api.nvim_win_get_cursor(origin_win)[1], "at the line the question was asked from")
  H.screenshot("neovim-answer-back")

  -- Following again and coming back again works the same way.
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "jumped again")
  vim.api.nvim_feedkeys(vim.keycode("<C-o>"), "nx", false)
  local again = H.wait_for(function() return H.floats()[1] end, 5000, "the answer float, the second time")
  vim.api.nvim_win_close(again, true)
end)

H.it("going back to the asking buffer without the jumplist (:buffer) does not reopen the answer", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local readme = vim.api.nvim_get_current_buf()
  local win, buf, result = ask("RagAsk How long is the frobnicator timeout?")
  vim.api.nvim_win_set_cursor(win, { find_line(buf, shown(frobnicator_source(result))), 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "jumped")
  vim.cmd.buffer(readme)
  -- The check is scheduled (vim.schedule, first in first out): once a callback scheduled after it ran, it ran.
  local flushed = false
  vim.schedule(function() flushed = true end)
  H.wait_for(function() return flushed end, 5000, "the scheduled check")
  H.eq(0, #H.floats(), "no float")
  require("ragls.jumpback").disarm()
end)

H.it("a source's focusRange, when the server sends one, is what the jump highlights", function()
  local path = vim.fs.joinpath(H.workspace, "guide", "frobnicator.md")
  local source = {
    n = 1, uri = vim.uri_from_fname(path), path = "guide/frobnicator.md",
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 12, character = 0 } },
    focusRange = { start = { line = 6, character = 0 }, ["end"] = { line = 7, character = 0 } },
  }
  jump.jump_to_source(source)
  H.eq(7, vim.api.nvim_win_get_cursor(0)[1], "cursor on the focus line")
  local marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq(6, marks[1][2], "highlight starts at the focus line")
  H.eq(7, marks[1][4].end_row, "one line")
end)

H.it("a cited sentence that starts or ends inside a line is highlighted from its first to its last character", function()
  local path = vim.fs.joinpath(H.workspace, "guide", "frobnicator.md")
  local row = H.line_of("guide/frobnicator.md", "A merge that runs out of time") - 1
  local text = vim.fn.readfile(path)[row + 1]
  local at = assert(text:find("A merge that runs out of time", 1, true)) - 1
  local function source(focus)
    return { n = 1, uri = vim.uri_from_fname(path), path = "guide/frobnicator.md",
      range = { start = { line = 0, character = 0 }, ["end"] = { line = 14, character = 0 } }, focusRange = focus }
  end
  require("ragls.config").values.highlight_ms = 0 -- stays for the screenshot
  -- the sentence after "... slow network share. " on its line, to the line's end
  jump.jump_to_source(source({ start = { line = row, character = at }, ["end"] = { line = row, character = #text } }))
  local marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq({ row, at, row + 1, 0 }, { marks[1][2], marks[1][3], marks[1][4].end_row, marks[1][4].end_col },
    "from the sentence's first character, the line's end included")
  H.eq({ row + 1, at }, vim.api.nvim_win_get_cursor(0), "the cursor on it")
  H.screenshot("neovim-highlight-mid-line-sentence")
  -- the sentence before it: from its line's start up to its last character, not the next sentence
  jump.jump_to_source(source({ start = { line = row - 1, character = 0 }, ["end"] = { line = row, character = at - 1 } }))
  marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, "one highlight")
  H.eq({ row - 1, 0, row, at - 1 }, { marks[1][2], marks[1][3], marks[1][4].end_row, marks[1][4].end_col },
    "whole first line, the last up to the sentence's end")
  -- lines cited whole stay whole lines (an end at character 0 ends with the line before)
  jump.jump_to_source(source({ start = { line = row - 2, character = 0 }, ["end"] = { line = row + 1, character = 0 } }))
  marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq({ row - 2, 0, row + 1, 0 }, { marks[1][2], marks[1][3], marks[1][4].end_row, marks[1][4].end_col }, "whole lines")
  require("ragls.config").values.highlight_ms = 3000
end)

H.finish()
