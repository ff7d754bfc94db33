-- :RagQuery in a picker (vim.ui.select fallback: no telescope/snacks/fzf-lua in the test), :RagQuery! to quickfix,
-- the transient highlight on open, <Plug> mappings, and a readable :RagStatus; against the real server.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace({ keymaps = { query = "<leader>rq", status = "<leader>rs" } })
-- What a user without notification plugins sees while the first index runs: Neovim's own vim.notify (progress echoed
-- on the cmdline) and the statusline component. One screenshot, at the first progress report.
vim.o.laststatus = 2
vim.o.statusline = "%f %=%{v:lua.require'ragls'.statusline()} "
vim.notify = H.real_notify
local progress_shot = false
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local value = ev.data and ev.data.params and ev.data.params.value or {}
    if not progress_shot and value.kind == "report" then
      progress_shot = true
      H.screenshot("neovim-progress")
    end
  end,
})
local client = H.open_and_wait_indexed("README.md", 3)
vim.notify = H.notify_recorder
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local picker = require("ragls.picker")

--- Run `fn` with vim.ui.select replaced: records each call and picks `choose(items)` (an index; nil cancels).
local function with_select(choose, fn)
  local calls = {}
  local orig = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    local shown = {}
    for _, item in ipairs(items) do
      table.insert(shown, opts.format_item(item))
    end
    table.insert(calls, { items = items, shown = shown, prompt = opts.prompt })
    local i = choose(items)
    on_choice(i and items[i] or nil, i)
  end
  local ok, err = pcall(fn, calls)
  vim.ui.select = orig
  assert(ok, err)
  return calls
end

H.it("without a picker plugin, :RagQuery uses vim.ui.select", function()
  H.eq("select", picker.backend(), "backend")
end)

H.it(":RagQuery lists results as relevance%  path:lines  heading, best first, with a quickfix entry last", function()
  local query = "frobnicator timeout seconds"
  local direct = H.request_sync(client, "rag/query", { query = query, topK = 20 }).result
  local calls = with_select(function() return nil end, function(calls)
    vim.cmd("RagQuery " .. query)
    H.wait_for(function() return #calls > 0 end, 30000, "the picker")
  end)
  local shown = calls[1].shown
  H.eq(#direct.chunks + 1, #shown, "one entry per result plus the quickfix entry")
  local first = direct.chunks[1]
  H.eq(("100%%  %s  %s"):format(ui.source_location(first.source), first.source.title), shown[1], "entry")
  -- path:lines of the hit's focus lines (one line or a span), as the CLI prints them; the best hit is 100%, the
  -- others their score's share of it (the raw convex score is not shown), in a column first
  H.ok(shown[1]:match("^100%%  guide/frobnicator%.md:%d+%-?%d*  .*Frobnicator timeout$"), shown[1])
  for i = 2, #direct.chunks do
    H.ok(shown[i]:match("^[ %d][ %d<]%d%%  %S"), shown[i])  -- " 64%", "  7%", " <1%"
  end
  H.eq(("→ all %d results to the quickfix list"):format(#direct.chunks), shown[#shown], "quickfix entry")
  H.eq("RagQuery: " .. query, calls[1].prompt, "prompt")
end)

H.it("the picker and :RagQuery! list search_top_k results (20), not top_k, the chunks of an answer", function()
  local config = require("ragls.config").values
  local query = "where are backups stored"
  local all = #H.request_sync(client, "rag/query", { query = query, topK = 20 }).result.chunks
  H.ok(all > 1, "more than one hit: " .. all)
  local listed = function()
    local calls = with_select(function() return nil end, function(calls)
      vim.cmd("RagQuery " .. query)
      H.wait_for(function() return #calls > 0 end, 30000, "the picker")
    end)
    return #calls[1].items - 1 -- the last entry sends them to quickfix
  end
  config.top_k = 1 -- answers read 1 chunk; a search still lists every hit up to search_top_k
  H.eq(all, listed(), "entries with top_k = 1")
  config.search_top_k = 1
  H.eq(1, listed(), "entries with search_top_k = 1")
  vim.fn.setqflist({}, "r")
  vim.cmd("RagQuery! " .. query)
  H.wait_for(function() return #vim.fn.getqflist() > 0 end, 30000, "quickfix items")
  H.eq(1, #vim.fn.getqflist(), "quickfix items with search_top_k = 1")
  config.top_k, config.search_top_k = nil, 20
end)

H.it("each query is live: another text lists other results", function()
  local firsts = {}
  for _, q in ipairs({ "frobnicator timeout seconds", "where are backups stored" }) do
    local calls = with_select(function() return nil end, function(calls)
      vim.cmd("RagQuery " .. q)
      H.wait_for(function() return #calls > 0 end, 30000, "the picker for " .. q)
    end)
    table.insert(firsts, calls[1].shown[1])
  end
  H.ok(firsts[1] ~= firsts[2], "different results: " .. vim.inspect(firsts))
end)

H.it("choosing an entry opens the file at the chunk's lines and highlights them with a transient extmark", function()
  require("ragls.config").values.highlight_ms = 0 -- stays until the next jump, for the check below
  local direct = H.request_sync(client, "rag/query", { query = "frobnicator timeout seconds" }).result
  local chosen = direct.chunks[1]
  with_select(function() return 1 end, function(calls)
    vim.cmd("RagQuery frobnicator timeout seconds")
    H.wait_for(function() return #calls > 0 end, 30000, "the picker")
  end)
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(0)), "file")
  local focus = chosen.source.focusRange or chosen.source.range
  H.eq(focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "cursor on the chunk's first (focus) line")
  local marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, "one highlight extmark")
  H.eq(focus.start.line, marks[1][2], "highlight from the first line")
  H.eq("RaglsSource", marks[1][4].hl_group, "group")
  require("ragls.config").values.highlight_ms = 3000
end)

H.it("the real vim.ui.select (no picker plugin) lists the results and opens the chosen one highlighted", function()
  require("ragls.config").values.highlight_ms = 0 -- stays for the screenshot
  local query = "frobnicator timeout seconds"
  local direct = H.request_sync(client, "rag/query", { query = query }).result
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local before = vim.api.nvim_get_current_buf()
  -- Stock vim.ui.select is the cmdline inputlist; "1<CR>" waits in the typeahead and answers it. (Its screen cannot
  -- be captured: in `nvim -l` a blocking prompt sometimes ends the process instead of waiting for the attached UI.)
  vim.api.nvim_feedkeys("1\r", "t", false)
  vim.cmd("RagQuery " .. query)
  H.wait_for(function() return vim.api.nvim_get_current_buf() ~= before end, 30000, "the chosen entry to open")
  local chosen = direct.chunks[1]
  local focus = chosen.source.focusRange or chosen.source.range
  H.eq(chosen.source.path, H.rel(vim.api.nvim_buf_get_name(0)), "the first entry's file")
  H.eq(focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "at its first (focus) line")
  local marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, "one highlight extmark")
  H.eq(focus.start.line, marks[1][2], "from the focus line")
  H.screenshot("neovim-picker-opened-highlight")
  require("ragls.config").values.highlight_ms = 3000
end)

H.it("the last entry and :RagQuery! fill the quickfix list", function()
  vim.fn.setqflist({}, "r")
  with_select(function(items) return #items end, function(calls)
    vim.cmd("RagQuery backups")
    H.wait_for(function() return #calls > 0 end, 30000, "the picker")
  end)
  local info = vim.fn.getqflist({ title = 1, items = 1 })
  H.eq("RagQuery: backups", info.title, "quickfix from the picker")
  H.ok(#info.items > 0, "items")
  vim.fn.setqflist({}, "r")
  vim.cmd("RagQuery! frobnicator timeout seconds")
  local items = H.wait_for(function()
    local i = vim.fn.getqflist({ title = 1, items = 1 })
    return i.title == "RagQuery: frobnicator timeout seconds" and #i.items > 0 and i.items
  end, 30000, "quickfix items")
  H.eq("guide/frobnicator.md", H.rel(vim.api.nvim_buf_get_name(items[1].bufnr)), "best hit")
  H.screenshot("neovim-picker-quickfix")
  vim.cmd("cclose")
end)

H.it("<Plug> mappings exist and setup keymaps map to them buffer-locally", function()
  for _, plug in ipairs({ "(ragls-ask)", "(ragls-query)", "(ragls-status)", "(ragls-commit)", "(ragls-last)" }) do
    H.ok(vim.fn.maparg("<Plug>" .. plug, "n") ~= "", "<Plug>" .. plug)
  end
  H.ok(vim.fn.maparg("<Plug>(ragls-ask)", "x") ~= "", "visual ask")
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local q = vim.fn.maparg("<leader>rq", "n", false, true)
  H.eq(1, q.buffer, "buffer-local")
  H.eq("<Plug>(ragls-query)", q.rhs, "maps to the <Plug> mapping")
end)

H.it(":RagStatus is a compact readable layout: no markdown, human times, ~ paths", function()
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd("RagStatus")
  local win = H.wait_for(function() return H.floats()[1] end, 20000, "status float")
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  local text = table.concat(lines, "\n")
  H.eq("Answers    none (extractive answers, no LLM)", lines[1], "first line")
  H.contains(text, "Embedding  sentence-transformers/all-MiniLM-L6-v2")
  H.contains(text, "  3 files · ")
  H.contains(text, " sections · indexed just now")
  H.contains(text, "  skipped    none")
  H.ok(not text:find("##", 1, true) and not text:find("- ", 1, true), "no markdown: " .. text)
  vim.api.nvim_win_close(win, true)
  H.eq("3 min ago", ui.human_time("2026-01-01T10:00:00+00:00", ui.parse_iso("2026-01-01T10:03:10+00:00")))
  H.eq("2 days ago", ui.human_time("2026-01-01T10:00:00.5+00:00", ui.parse_iso("2026-01-03T11:00:00+00:00")))
  H.eq("never", ui.human_time(nil))
end)

H.it("errors never name protocol methods", function()
  H.notes = {}
  local failed
  require("ragls.rpc").request("rag/query", { query = "frobnicator", topK = 0 }, function() end, {
    on_error = function(err) failed = err end,
  })
  H.wait_for(function() return failed end, 20000, "the error")
  local note = H.notes[#H.notes]
  H.contains(note.msg, "ragls: search failed: ")
  H.ok(not note.msg:find("rag/", 1, true), note.msg)
end)

H.finish()
