-- The REAL plugins ragls' Neovim users pair it with, from ../shared/nvim-plugins (see its README;
-- $RAGLS_NVIM_PLUGINS overrides the folder), against the real server. fidget.nvim shows the server's own
-- `$/progress` (ragls adds nothing of its own then). :RagQuery with telescope.nvim (+ plenary.nvim), snacks.nvim and
-- fzf-lua (+ Debian's fzf): the picker lists rag/query's results, its preview lands on and highlights the cited
-- (focus) lines, and <CR> opens them. A plugin that is not there (a clone without the shared folder) is skipped with
-- the reason, and so is fzf-lua without the fzf binary (.ci/run installs Debian's and requires it).
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local repo = vim.fs.dirname(vim.fs.dirname(H.plugin_dir))
local plugins = os.getenv("RAGLS_NVIM_PLUGINS") or vim.fs.joinpath(vim.fs.dirname(repo), "shared", "nvim-plugins")
local function plugin(name)
  local dir = vim.fs.joinpath(plugins, name)
  return vim.fn.isdirectory(dir) == 1 and dir or nil
end

--- H.it(`title`, fn) given the folders of the plugins `names`, in that order (fn(dir, ...)); a "# SKIP" line naming them
--- instead when one is not in `plugins` (a clone without the shared folder).
local function it_with_plugins(title, names, fn)
  H.it(title, function()
    local dirs = {}
    for i, name in ipairs(names) do
      dirs[i] = plugin(name)
      if not dirs[i] then
        H.out("# SKIP " .. table.concat(names, " / ") .. " not found in " .. plugins)
        return
      end
    end
    return fn(unpack(dirs, 1, #names))
  end)
end

-- fidget.nvim is loaded before the server starts, as a plugin manager would: it must see the first $/progress.
local fidget_dir = plugin("fidget.nvim")
local fidget_seen = nil
if fidget_dir then
  vim.opt.runtimepath:prepend(fidget_dir)
  require("fidget").setup({})
  -- what fidget renders, recorded on its way in (progress items skip fidget's history); the real notify still runs
  local notification = require("fidget.notification")
  local real = notification.notify
  notification.notify = function(msg, level, opts)
    fidget_seen = fidget_seen or {}
    table.insert(fidget_seen, { msg = msg, annote = opts and opts.annote, group = opts and opts.group })
    return real(msg, level, opts)
  end
end
H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local config = require("ragls.config")

local QUERY = "frobnicator timeout seconds"
local best = H.request_sync(client, "rag/query", { query = QUERY }).result.chunks[1]
local focus = best.source.focusRange or best.source.range
local best_file = vim.uv.fs_realpath(vim.fs.joinpath(H.workspace, best.source.path))

local function reset()
  vim.cmd("stopinsert")
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_is_valid(w) and vim.api.nvim_win_get_config(w).relative ~= "" then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
  vim.cmd.edit({ vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")), bang = true })
end

--- The preview window `win` shows the best chunk's file with the cursor on its first focus line, those lines lit.
local function preview_at_focus(win)
  local buf = vim.api.nvim_win_get_buf(win)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if not vim.deep_equal(lines, vim.fn.readfile(best_file)) then
    return false
  end
  return vim.api.nvim_win_get_cursor(win)[1] == focus.start.line + 1
end

--- `what` (<CR>, the picker's confirm) opened the best chunk's file with the cursor on its first focus line.
local function opened_at_focus(what)
  H.wait_for(function() return vim.uv.fs_realpath(vim.api.nvim_buf_get_name(0)) == best_file end, 10000, "opened")
  H.eq(focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], what .. " opens the file at the focus line")
  vim.cmd("stopinsert")
end

--- The preview window `win` lights the cited lines: one highlight, from the first focus line.
local function focus_lit(win)
  local marks = vim.api.nvim_buf_get_extmarks(vim.api.nvim_win_get_buf(win), jump.highlight_ns, 0, -1,
    { details = true })
  H.eq(1, #marks, "the cited lines are highlighted")
  H.eq(focus.start.line, marks[1][2], "from the first focus line")
end

H.it("fidget.nvim (real): shows the server's indexing progress; ragls echoes and notifies nothing itself", function()
  if not fidget_dir then
    H.out("# SKIP fidget.nvim not found in " .. plugins)
    return
  end
  H.ok(fidget_seen, "fidget got ragls progress")
  local annotes = vim.tbl_map(function(n) return tostring(n.annote) end, fidget_seen)
  local messages = table.concat(vim.tbl_map(function(n) return tostring(n.msg) end, fidget_seen), " | ")
  H.ok(vim.tbl_contains(annotes, "ragls: indexing"), "the progress title as fidget's annotation: " .. vim.inspect(annotes))
  -- the server's report messages say what the user gets ("for meaning search 3/9 sections"), not the step's name
  H.ok(messages:find("for meaning search %d+/%d+ sections") ~= nil, "the server's report messages: " .. messages)
  H.ok(not messages:find("chunks", 1, true) and not messages:find("windows", 1, true), "no step names: " .. messages)
  H.eq("ragls", fidget_seen[1].group, "fidget's group: the LSP client's name")
  -- a save re-indexes the file: fidget's window shows that progress too (ragls keeps later ones to the statusline)
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "", "A line added to re-index the file." })
  vim.cmd("silent write")
  -- fidget draws its lines as virtual text
  local function fidget_text()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        local buf, parts = vim.api.nvim_win_get_buf(w), {}
        for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
          for _, chunk in ipairs(mark[4].virt_text or {}) do
            table.insert(parts, chunk[1])
          end
        end
        local text = table.concat(parts)
        if text:find("ragls", 1, true) then
          return text
        end
      end
    end
  end
  local shown = H.wait_for(fidget_text, 20000, "fidget's window showing ragls progress")
  H.out("# fidget shows: " .. shown)
  -- the finished progress: its end message is the outcome, read with the title ("done  ragls: indexing"; it read
  -- "up to date  ragls: indexing")
  local finished = H.wait_for(function()
    local text = fidget_text()
    return text and text:find("done%s+ragls: indexing") and text
  end, 20000, "fidget's finished line")
  H.out("# fidget's last line: " .. finished)
  H.ok(not finished:find("up to date", 1, true), finished)
  H.screenshot("fidget-progress")
  H.eq({}, vim.tbl_map(function(n) return n.msg end, H.notes_matching("ragls: index")), "no ragls progress notification")
  H.ok(not vim.api.nvim_exec2("messages", { output = true }).output:find("ragls: index", 1, true),
    "no ragls progress in :messages")
end)

it_with_plugins("telescope.nvim (real): the preview's cursor is on the cited line, lit; <CR> opens it",
  { "telescope.nvim", "plenary.nvim" }, function(tele, plenary)
  vim.opt.runtimepath:prepend(plenary)
  vim.opt.runtimepath:prepend(tele)
  require("telescope").setup({}) -- telescope's defaults: no dynamic_preview_title
  config.values.picker = "telescope"
  vim.o.columns, vim.o.lines = 160, 40 -- telescope shows its preview from 120 columns (preview_cutoff)
  reset()
  vim.cmd("RagQuery " .. QUERY)
  local picker
  H.wait_for(function()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.bo[b].filetype == "TelescopePrompt" then
        picker = require("telescope.actions.state").get_current_picker(b)
      end
    end
    return picker ~= nil and type(picker.manager) == "table" and picker.manager:num_results() > 0
  end, 30000, "the telescope picker with results")
  local win = picker.layout.preview.winid
  H.wait_for(function() return preview_at_focus(win) end, 20000, "the preview at the focus line")
  focus_lit(win)
  -- the cited lines read whole: wrapped at words, not cut at the preview's edge
  H.ok(vim.wo[win].wrap and vim.wo[win].linebreak, "the preview wraps at words")
  -- the preview is titled with the entry's path and lines, not "ragls": on screen with telescope's defaults, and
  -- through its dynamic_preview_title
  local entry = require("telescope.actions.state").get_selected_entry()
  local location = ui.source_location(entry.value.source)
  H.ok(location:find("^guide/frobnicator%.md:%d"), location)
  H.eq(location, picker.previewer:title(entry, true), "the preview's dynamic title")
  local rows, at = H.screen_row(location)
  H.ok(rows[at]:find("─ " .. location .. " ─", 1, true), "the preview's border title: " .. rows[at])
  H.screenshot("telescope-preview")
  require("telescope.actions").select_default(picker.prompt_bufnr)
  opened_at_focus("<CR>")
end)

it_with_plugins("snacks.nvim picker (real): the preview's cursor is on the cited line; confirm opens it",
  { "snacks.nvim" }, function(snacks_dir)
  package.loaded["telescope.pickers"] = nil
  vim.opt.runtimepath:prepend(snacks_dir)
  require("snacks").setup({ picker = { enabled = true } })
  config.values.picker = "snacks"
  reset()
  vim.cmd("RagQuery " .. QUERY)
  local picker
  H.wait_for(function()
    picker = Snacks.picker.get()[1]
    return picker ~= nil and #picker:items() > 0 and picker.preview and picker.preview.win
      and picker.preview.win.win and vim.api.nvim_win_is_valid(picker.preview.win.win)
  end, 30000, "the snacks picker with results and its preview")
  local win = picker.preview.win.win
  H.wait_for(function() return preview_at_focus(win) end, 20000, "the preview at the focus line")
  -- prose wraps at words (snacks' default preview wrapped mid-word), titled path:lines as telescope's and fzf-lua's
  H.eq({ true, true }, { vim.wo[win].wrap, vim.wo[win].linebreak }, "the preview wraps at words")
  local title = vim.api.nvim_win_get_config(win).title or ""
  title = type(title) == "table" and vim.iter(title):map(function(c) return c[1] end):join("") or title
  H.ok(title:find(ui.source_location(picker:current().chunk.source), 1, true), "titled path:lines: " .. title)
  H.ok(title:find("guide/frobnicator.md:", 1, true), "the best result's path:lines: " .. title)
  -- the cited lines in one colour, as telescope and fzf-lua show them: snacks lit its cursor line (the first) as
  -- Visual and the others as Search
  local chunk = picker:current().chunk
  local first = (chunk.source.focusRange or chunk.source.range).start.line + 1
  local last = (chunk.source.focusRange or chunk.source.range)["end"].line + 1
  H.ok(last > first, "the best result cites several lines")
  local attrs = H.with_ui(function()
    vim.cmd("redraw")
    return vim.tbl_map(function(lnum)
      local at = vim.fn.screenpos(win, lnum, 1)
      return vim.fn.screenattr(at.row, at.col)
    end, { first, last })
  end)
  H.eq(attrs[1], attrs[2], ("lines %d and %d lit alike"):format(first, last))
  H.screenshot("snacks-preview")
  picker:action("confirm")
  opened_at_focus("confirm")
end)

it_with_plugins("fzf-lua (real, with Debian's fzf): the preview's cursor is on the cited line, lit; <CR> opens it",
  { "fzf-lua" }, function(fzf_dir)
  if vim.fn.executable("fzf") == 0 then
    -- CI installs it (.ci/run) and sets RAGLS_REQUIRE_FZF, so there this fails instead of skipping
    H.ok(os.getenv("RAGLS_REQUIRE_FZF") ~= "1", "the fzf binary (Debian package fzf) is not on PATH")
    H.out("# SKIP the fzf binary is not on PATH (apt-get install fzf)")
    return
  end
  for _, name in ipairs({ "telescope", "telescope.pickers", "snacks" }) do
    package.loaded[name] = nil
  end
  vim.opt.runtimepath:prepend(fzf_dir)
  require("fzf-lua").setup({})
  config.values.picker = "fzf-lua"
  vim.o.columns, vim.o.lines = 80, 24 -- fzf-lua's default layout: the preview above the list below 100 columns
  reset()
  vim.cmd("RagQuery " .. QUERY)
  local fzf_win
  H.wait_for(function()
    fzf_win = require("fzf-lua.win").__SELF()
    return fzf_win and fzf_win.preview_winid and vim.api.nvim_win_is_valid(fzf_win.preview_winid)
      and preview_at_focus(fzf_win.preview_winid)
  end, 30000, "the fzf-lua picker previewing the best result at its focus line")
  local win = fzf_win.preview_winid
  focus_lit(win)
  -- prose wraps at words (fzf-lua's own default is nowrap: sentences were cut at the preview's edge)
  H.eq({ true, true }, { vim.wo[win].wrap, vim.wo[win].linebreak }, "the preview wraps at words")
  local title = vim.iter(vim.api.nvim_win_get_config(win).title or {}):map(function(c) return c[1] end):join("")
  H.eq((" %s "):format(ui.source_location(best.source)), title, "titled path:lines, as telescope's preview")
  H.screenshot("fzf-lua-preview")
  -- <CR> in fzf's terminal: the default action opens the entry
  vim.api.nvim_chan_send(vim.bo[fzf_win.fzf_bufnr].channel, "\r")
  opened_at_focus("<CR>")
end)

H.it("an HTML page's result: telescope's, snacks' and fzf-lua's previews show the text ragls extracted, at its lines",
  function()
    -- The lines of a PDF, HTML or DOCX file's chunk count its extracted text (|ragls.extracted|), not the file's.
    local rel = "guide/pairing.html"
    vim.fn.writefile({ "<html><head><title>Pairing</title></head><body>", "<h1>Pairing a tablet</h1>",
      "<p>Open Settings, choose Devices, and scan the pairing code shown on the tablet.",
      "A pairing code expires after 90 seconds; ask the tablet for a new one when it does.</p>",
      "</body></html>" }, vim.fs.joinpath(H.workspace, rel))
    H.notes = {}
    vim.cmd("RagRebuild")
    -- the whole rebuild first: a query during it sees part of the index
    H.wait_for(function() return H.notes_matching("ragls: indexed 4 files")[1] end, 120000, "the rebuild")
    local query = "how long is a pairing code valid"
    local hit = H.wait_for(function()
      local chunk = (H.request_sync(client, "rag/query", { query = query, topK = 3 }).result or {}).chunks[1]
      return chunk and chunk.source.path == rel and chunk
    end, 120000, "the page indexed, its chunk the first result")
    H.eq(true, hit.source.extractedText, "its lines count extracted text")
    local at = (hit.source.focusRange or hit.source.range).start.line + 1
    local text = vim.api.nvim_buf_get_lines(require("ragls.extracted").source_buffer(hit.source), 0, -1, false)
    H.ok(text[at] and text[at]:find("pairing code", 1, true) and not table.concat(text):find("<", 1, true),
      ("the cited line of the extracted text: %q in\n%s"):format(text[at], table.concat(text, "\n")))
    --- The preview window `win` shows the extracted text with the cursor on the cited line (not the HTML file).
    local seen
    local function previews_text(win)
      seen = { lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false),
        cursor = vim.api.nvim_win_get_cursor(win)[1] }
      return vim.deep_equal(seen.lines, text) and seen.cursor == at
    end
    local function wait_for(f, ms, what) -- saying what the preview showed when it times out
      local ok, res = pcall(H.wait_for, f, ms, what)
      H.ok(ok, tostring(res) .. "; the preview showed: " .. vim.inspect(seen))
      return res
    end
    --- After a picker's split / vertical split / tab key: a new window (of `layout`: "row" for a vertical split,
    --- "col" for a split, "tab" for a new tab page) shows the extracted-text buffer, the cursor on the cited line;
    --- the HTML file is not opened.
    local function opened_in(layout, key, shot)
      local tabs = #vim.api.nvim_list_tabpages()
      local state
      local okw, err = pcall(H.wait_for, function()
        local buf = vim.api.nvim_get_current_buf()
        local floating = vim.api.nvim_win_get_config(0).relative ~= ""
        state = { name = vim.api.nvim_buf_get_name(buf), layout = vim.fn.winlayout()[1],
          tabs = #vim.api.nvim_list_tabpages(), cursor = vim.api.nvim_win_get_cursor(0)[1], floating = floating }
        return not floating and vim.b[buf].ragls_extracted ~= nil
      end, 20000, key .. " opening the result")
      H.ok(okw, tostring(err) .. "; the current window: " .. vim.inspect(state))
      H.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), text, key .. ": the extracted text")
      H.eq(at, state.cursor, key .. ": the cursor on the cited line")
      if layout == "tab" then
        H.ok(state.tabs > 1 or tabs > 1, key .. ": in a new tab page " .. vim.inspect(state))
      else
        H.eq(layout, state.layout, key .. ": in a new window beside the old one " .. vim.inspect(vim.fn.winlayout()))
      end
      local html = vim.fs.normalize(vim.fs.joinpath(H.workspace, rel))
      H.eq({}, vim.tbl_filter(function(b)
        return vim.api.nvim_buf_is_loaded(b) and vim.fs.normalize(vim.api.nvim_buf_get_name(b)) == html
      end, vim.api.nvim_list_bufs()), key .. ": the HTML file itself not opened")
      vim.cmd("stopinsert")
      if shot then
        H.screenshot(shot)
      end
      vim.cmd("silent! tabonly | silent! only")
    end
    local tele, plenary, snacks_dir, fzf_dir = plugin("telescope.nvim"), plugin("plenary.nvim"),
      plugin("snacks.nvim"), plugin("fzf-lua")
    if tele and plenary then
      config.values.picker = "telescope"
      vim.o.columns, vim.o.lines = 160, 40
      reset()
      vim.cmd("RagQuery " .. query)
      local picker
      wait_for(function()
        for _, b in ipairs(vim.api.nvim_list_bufs()) do
          if vim.bo[b].filetype == "TelescopePrompt" then
            picker = require("telescope.actions.state").get_current_picker(b)
          end
        end
        return picker and picker.layout and picker.layout.preview and previews_text(picker.layout.preview.winid)
      end, 30000, "telescope's preview: the extracted text at the cited line")
      local buf = vim.api.nvim_win_get_buf(picker.layout.preview.winid)
      local marks = vim.api.nvim_buf_get_extmarks(buf, jump.highlight_ns, 0, -1, {})
      H.eq(at - 1, marks[1] and marks[1][2], "the cited line is lit")
      H.screenshot("telescope-preview-extracted-text")
      vim.api.nvim_feedkeys(vim.keycode("<C-v>"), "mx", false) -- telescope's vertical split: the extracted text, as <CR> opens it
      opened_in("row", "telescope's <C-v>", "telescope-vsplit-extracted-text")
    else
      H.out("# SKIP telescope.nvim / plenary.nvim not found in " .. plugins)
    end
    if snacks_dir then
      config.values.picker = "snacks"
      reset()
      vim.cmd("RagQuery " .. query)
      local sp
      wait_for(function()
        sp = Snacks.picker.get()[1]
        local win = sp and sp.preview and sp.preview.win and sp.preview.win.win
        return win and vim.api.nvim_win_is_valid(win) and previews_text(win)
      end, 30000, "snacks' preview: the extracted text at the cited line")
      H.screenshot("snacks-preview-extracted-text")
      vim.api.nvim_feedkeys(vim.keycode("<C-s>"), "mx", false) -- snacks' split
      opened_in("col", "snacks' <C-s>", "snacks-split-extracted-text")
      reset()
      vim.cmd("RagQuery " .. query)
      wait_for(function()
        sp = Snacks.picker.get()[1]
        local win = sp and sp.preview and sp.preview.win and sp.preview.win.win
        return win and vim.api.nvim_win_is_valid(win) and previews_text(win)
      end, 30000, "snacks' preview again")
      vim.api.nvim_feedkeys(vim.keycode("<C-t>"), "mx", false) -- snacks' tab
      opened_in("tab", "snacks' <C-t>")
    else
      H.out("# SKIP snacks.nvim not found in " .. plugins)
    end
    if fzf_dir and vim.fn.executable("fzf") == 1 then
      config.values.picker = "fzf-lua"
      vim.o.columns, vim.o.lines = 80, 24
      reset()
      vim.cmd("RagQuery " .. query)
      local fzf_win
      wait_for(function()
        fzf_win = require("fzf-lua.win").__SELF()
        return fzf_win and fzf_win.preview_winid and vim.api.nvim_win_is_valid(fzf_win.preview_winid)
          and previews_text(fzf_win.preview_winid)
      end, 30000, "fzf-lua's preview: the extracted text at the cited line")
      local marks = vim.api.nvim_buf_get_extmarks(vim.api.nvim_win_get_buf(fzf_win.preview_winid), jump.highlight_ns,
        0, -1, {})
      H.eq(at - 1, marks[1] and marks[1][2], "the cited line is lit")
      H.screenshot("fzf-lua-preview-extracted-text")
      vim.api.nvim_chan_send(vim.bo[fzf_win.fzf_bufnr].channel, "\022") -- ctrl-v: fzf-lua's vertical split
      opened_in("row", "fzf-lua's ctrl-v", "fzf-lua-vsplit-extracted-text")
    else
      H.out("# SKIP fzf-lua or the fzf binary not found")
    end
  end)

--- Hold back the picker's first search (ragls.picker.query) until the picker is seen saying it runs. Returns
--- release(probe, what, shot): waits (60 s at most, `what`) for a search to be held and probe() to be true, saves the
--- screenshot `shot` when it was, then runs the held search and puts ragls.picker.query back; fails when the wait did.
local function hold_first_search()
  local picker_mod = require("ragls.picker")
  local real_query, held = picker_mod.query, nil
  picker_mod.query = function(text, cb, opts)
    held = function() return real_query(text, cb, opts) end
  end
  return function(probe, what, shot)
    local ok, seen = pcall(H.wait_for, function() return held and probe() end, 60000, what)
    picker_mod.query = real_query
    if ok then
      H.screenshot(shot)
    end
    if held then
      held()
    end
    assert(ok, seen)
  end
end

--- Stop the running ragls server (the next :RagQuery starts one again); forced: one that has just started may
--- still be busy opening its workspace.
local function stop_server()
  for _, c in ipairs(vim.lsp.get_clients({ name = "ragls" })) do
    if vim.fn.has("nvim-0.11") == 1 then c:stop(true) else c.stop(true) end
  end
  H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls" }) == 0 end, 20000, "the server to stop")
  vim.wait(300, function() return false end) -- (the exit's scheduled steps)
  -- a server stopped on purpose (SIGTERM) is no crash: nothing to restart
  H.eq({}, vim.tbl_map(function(n) return n.msg end, H.notes_matching("the server stopped")), "no crash notice")
end

it_with_plugins("telescope and snacks opened while the server starts: one entry says so at once, then the results fill in",
  { "telescope.nvim", "plenary.nvim", "snacks.nvim" }, function(tele, plenary, snacks_dir)
    vim.o.columns, vim.o.lines = 160, 40
    local picker_mod = require("ragls.picker")
    -- telescope
    config.values.picker = "telescope"
    reset()
    stop_server()
    -- the first search once the server is up is held back here until the picker has been seen saying it runs
    local release = hold_first_search()
    vim.cmd("RagQuery " .. QUERY)
    local picker
    local first = H.wait_for(function()
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.bo[b].filetype == "TelescopePrompt" then
          picker = require("telescope.actions.state").get_current_picker(b)
        end
      end
      local entry = picker and type(picker.manager) == "table" and picker.manager:num_results() > 0
        and picker.manager:get_entry(1)
      return entry and entry.display
    end, 10000, "the telescope picker open before the server answered")
    H.eq(picker_mod.STARTING, first, "its one entry says what it waits for")
    H.ok(#vim.lsp.get_clients({ name = "ragls" }) == 0, "shown before the server answered initialize")
    H.screenshot("telescope-starting")
    -- <CR> on the notice opens nothing and keeps the picker
    require("telescope.actions").select_default(picker.prompt_bufnr)
    H.ok(vim.api.nvim_buf_is_valid(picker.prompt_bufnr), "the picker stays open on the notice")
    -- the server up, its first search running (it waits for the index to open): said so, not "starting" any more
    release(function()
      local entry = picker.manager:num_results() > 0 and picker.manager:get_entry(1)
      return entry and entry.display == picker_mod.FIRST_SEARCH and entry.display
    end, "the entry saying the server is up and its first search runs", "telescope-first-search")
    H.wait_for(function()
      local entry = picker.manager:num_results() > 0 and picker.manager:get_entry(1)
      return entry and entry.value.source ~= nil
    end, 60000, "the results once the server answered")
    H.ok(picker.manager:get_entry(1).display:find("guide/frobnicator.md", 1, true), picker.manager:get_entry(1).display)
    vim.cmd("stopinsert")
    -- snacks
    package.loaded["telescope.pickers"] = nil
    local Snacks = require("snacks")
    config.values.picker = "snacks"
    reset()
    stop_server()
    vim.cmd("RagQuery " .. QUERY)
    local sp
    local item = H.wait_for(function()
      sp = Snacks.picker.get()[1]
      return sp and #sp:items() > 0 and sp:items()[1]
    end, 10000, "the snacks picker open before the server answered")
    H.eq(picker_mod.STARTING, item.text, "its one item says what it waits for")
    H.ok(#vim.lsp.get_clients({ name = "ragls" }) == 0, "shown before the server answered initialize")
    H.screenshot("snacks-starting")
    H.wait_for(function()
      local it = #sp:items() > 0 and sp:items()[1]
      return it and it.file ~= nil
    end, 60000, "the results once the server answered")
    sp:close()
    vim.cmd("stopinsert")
  end)

H.it("fzf-lua opened while the server starts: its title says so, then that the first search runs, until the results come", function()
  local fzf_dir = plugin("fzf-lua")
  if not fzf_dir or vim.fn.executable("fzf") == 0 then
    H.out("# SKIP fzf-lua or the fzf binary not found")
    return
  end
  for _, name in ipairs({ "telescope", "telescope.pickers", "snacks" }) do
    package.loaded[name] = nil
  end
  config.values.picker = "fzf-lua"
  vim.o.columns, vim.o.lines = 100, 30
  reset()
  stop_server()
  -- the first search once the server is up is held back here until the title has been seen saying it runs
  local release = hold_first_search()
  vim.cmd("RagQuery " .. QUERY)
  local function screen()
    local w = require("fzf-lua.win").__SELF()
    local buf = w and w.fzf_bufnr
    return buf and vim.api.nvim_buf_is_valid(buf) and table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
      or ""
  end
  --- The fzf window's title, as Neovim draws it on the float's border ("" without one).
  local function title()
    local w = require("fzf-lua.win").__SELF()
    if not (w and w.fzf_winid and vim.api.nvim_win_is_valid(w.fzf_winid)) then
      return ""
    end
    local t = vim.api.nvim_win_get_config(w.fzf_winid).title
    return type(t) == "table" and table.concat(vim.tbl_map(function(c) return c[1] end, t)) or (t or "")
  end
  H.wait_for(function() return title():find(require("ragls.picker_fzf").FZF_STARTING, 1, true) end, 10000,
    "fzf open, its title saying the server starts, before the server answered")
  H.ok(#vim.lsp.get_clients({ name = "ragls" }) == 0, "shown before the server answered initialize")
  H.screenshot("fzf-lua-starting")
  -- the server up, its first search running (it waits for the index to open): said so, not "starting" any more
  local fzf_picker = require("ragls.picker_fzf")
  release(function() return title():find(fzf_picker.FZF_FIRST_SEARCH, 1, true) and title() end,
    "the title saying the server is up and its first search runs", "fzf-lua-first-search")
  H.wait_for(function() return screen():find("guide/frobnicator.md", 1, true) end, 60000,
    "the results once the server answered")
  -- The notice goes with the results (fzf 0.38's --header could not be changed: it outlived them).
  H.ok(not title():find("starting", 1, true), "the title without the notice: " .. title())
  H.ok(not screen():find("starting", 1, true), "no starting notice left beside the results: " .. screen())
  H.screenshot("fzf-lua-started")
  local w = require("fzf-lua.win").__SELF()
  vim.api.nvim_chan_send(vim.bo[w.fzf_bufnr].channel, "\027") -- <Esc>: close fzf
  vim.cmd("stopinsert")
end)

H.finish()
