-- :RagQuery's telescope / snacks.picker / fzf-lua adapters, against STAND-INS of those plugins — NOT the real
-- plugins, which cannot be installed where these tests run. Each stand-in is a minimal Lua module (package.preload)
-- with only the documented entry points the adapter calls — telescope's `pickers.new(opts, spec):find()`,
-- `finders.new_dynamic{fn, entry_maker}`, `previewers.new_buffer_previewer{define_preview}`,
-- `actions.set.select:replace`; snacks' `Snacks.picker.pick{finder, format, confirm, actions, live, search}`;
-- fzf-lua's `fzf_live(contents, opts)` — recording what it was given. The test then plays the plugin's part: it
-- calls the adapter's finder / previewer / actions the way the plugin's docs say the plugin does, and checks the
-- results against the real ragls server (real index, real file jumps and highlights). What this cannot show is
-- that the real plugins behave as documented: real_plugins_spec.lua runs the real telescope.nvim, snacks.nvim and
-- fzf-lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local picker = require("ragls.picker")
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local config = require("ragls.config")

local QUERY = "frobnicator timeout seconds"
local direct = H.request_sync(client, "rag/query", { query = QUERY, topK = 20 }).result -- as the pickers ask
local best = direct.chunks[1]
local best_focus = best.source.focusRange or best.source.range

local STANDIN_MODULES = { "telescope.pickers", "telescope.finders", "telescope.previewers", "telescope.sorters",
  "telescope.actions", "telescope.actions.set", "telescope.actions.state", "snacks", "fzf-lua" }

local function remove_standins()
  for _, name in ipairs(STANDIN_MODULES) do
    package.loaded[name], package.preload[name] = nil, nil
  end
end

--- Back in README.md with no highlight, and an empty quickfix list.
local function reset()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  vim.fn.setqflist({}, "r")
end

--- The chosen chunk was opened: its file, at its (focus) line, highlighted.
local function assert_opened(what)
  H.eq(best.source.path, H.rel(vim.api.nvim_buf_get_name(0)), what .. ": file")
  H.eq(best_focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], what .. ": line")
  local marks = vim.api.nvim_buf_get_extmarks(0, jump.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, what .. ": one highlight")
  H.eq(best_focus.start.line, marks[1][2], what .. ": highlight at the focus line")
end

local function assert_quickfix(what)
  local info = vim.fn.getqflist({ title = 1, items = 1 })
  H.eq("RagQuery: " .. QUERY, info.title, what .. ": quickfix title")
  H.eq(#direct.chunks, #info.items, what .. ": one quickfix item per result")
  vim.cmd("cclose")
end

local function formatted(chunks)
  return vim.tbl_map(picker.format, chunks)
end

H.it("with no picker plugin the backend is vim.ui.select, also when a missing one is configured", function()
  remove_standins()
  H.eq("select", picker.backend(), "auto")
  config.values.picker = "telescope"
  H.eq("select", picker.backend(), "configured but not installed")
  config.values.picker = "auto"
end)

-- telescope.nvim --------------------------------------------------------------------------------------------------
local tele
local function install_telescope_standin()
  tele = {}
  package.preload["telescope.pickers"] = function()
    return { new = function(opts, spec)
      tele.opts, tele.spec = opts, spec
      return { find = function() tele.found = true end }
    end }
  end
  package.preload["telescope.finders"] = function() return { new_dynamic = function(o) return o end } end
  package.preload["telescope.previewers"] = function() return { new_buffer_previewer = function(o) return o end } end
  package.preload["telescope.sorters"] = function() return { empty = function() return "empty-sorter" end } end
  package.preload["telescope.actions"] = function()
    return {
      send_selected_to_qflist = { replace = function(_, fn) tele.send_selected = fn end },
      close = function(bufnr) tele.closed = bufnr end,
    }
  end
  package.preload["telescope.actions.set"] = function()
    return { select = { replace = function(_, fn) tele.select = fn end } }
  end
  package.preload["telescope.actions.state"] = function()
    return {
      get_selected_entry = function() return tele.selected end,
      get_current_line = function() return tele.prompt end,
    }
  end
end

H.it("telescope stand-in (not the real plugin): dynamic finder, entries, preview at the lines, open, <C-q>", function()
  remove_standins()
  install_telescope_standin()
  reset()
  H.eq("telescope", picker.backend(), "backend")
  vim.cmd("RagQuery " .. QUERY)
  H.wait_for(function() return tele.found end, 20000, "pickers.new(...):find()")
  H.eq(QUERY, tele.spec.default_text, "the typed text is the prompt")
  H.eq(picker.DEBOUNCE_MS, tele.spec.debounce, "debounced re-query")
  H.eq("empty-sorter", tele.spec.sorter, "the server's order is kept")
  -- The finder asks the server for each prompt.
  local results = tele.spec.finder.fn(QUERY)
  H.eq(formatted(direct.chunks), formatted(results), "the finder returns rag/query's chunks")
  H.eq({}, tele.spec.finder.fn("   "), "an empty prompt asks nothing")
  local entry = tele.spec.finder.entry_maker(results[1])
  H.eq(picker.format(best), entry.display, "display")
  H.eq(vim.fs.joinpath(vim.uv.fs_realpath(H.workspace), best.source.path),
    vim.uv.fs_realpath(entry.filename), "filename")
  -- The buffer previewer shows the file at the chunk's lines, highlighted.
  local pbuf = vim.api.nvim_create_buf(false, true)
  local pwin = vim.api.nvim_open_win(pbuf, false, { relative = "editor", row = 1, col = 1, width = 60, height = 10 })
  tele.spec.previewer.define_preview({ state = { bufnr = pbuf, winid = pwin } }, entry)
  H.eq(vim.fn.readfile(entry.filename), vim.api.nvim_buf_get_lines(pbuf, 0, -1, false), "preview: the file")
  -- (placed in a vim.schedule: the real telescope shows the buffer in the window only then; real_plugins_spec)
  H.wait_for(function() return vim.api.nvim_win_get_cursor(pwin)[1] == best_focus.start.line + 1 end, 5000,
    "preview: at the focus line")
  H.eq(1, #vim.api.nvim_buf_get_extmarks(pbuf, jump.highlight_ns, 0, -1, {}), "preview: lines highlighted")
  vim.api.nvim_win_close(pwin, true)
  -- Mappings: <CR> (actions.set.select "default") opens the entry; <C-q> sends the results to quickfix.
  local mapped = {}
  H.eq(true, tele.spec.attach_mappings(42, function(modes, lhs, fn) mapped[lhs] = { modes = modes, fn = fn } end),
    "attach_mappings keeps the default mappings")
  tele.selected = entry
  tele.select(42, "default")
  H.eq(42, tele.closed, "the picker is closed first")
  assert_opened("telescope <CR>")
  tele.prompt = QUERY
  mapped["<C-q>"].fn()
  assert_quickfix("telescope <C-q>")
  -- A search that fails says why in the list (one notice entry, opening nothing), not an empty picker.
  tele.found = nil
  vim.cmd("RagQuery rag=nope " .. QUERY)
  H.wait_for(function() return tele.found end, 20000, "pickers.new(...):find() for rag=nope")
  local failed = tele.spec.finder.fn(QUERY)
  H.eq(1, #failed, "one entry: " .. vim.inspect(failed))
  H.contains(failed[1].ragls_notice, "ragls: search failed: unknown rag 'nope'", "the server's reason")
  H.eq(failed[1].ragls_notice, tele.spec.finder.entry_maker(failed[1]).display, "shown as its text")
  H.ok(picker.nothing_found("frobnicator"):find("no docs match “frobnicator”", 1, true), picker.nothing_found("x"))
end)

-- snacks.nvim -----------------------------------------------------------------------------------------------------
local snacks
local function install_snacks_standin()
  snacks = {}
  package.preload["snacks"] = function()
    return { picker = { pick = function(opts) snacks.opts = opts end } }
  end
end

H.it("snacks.picker stand-in (not the real plugin): live finder, file items at the lines, confirm, <C-q>", function()
  remove_standins()
  install_snacks_standin()
  reset()
  H.eq("snacks", picker.backend(), "backend")
  vim.cmd("RagQuery " .. QUERY)
  H.wait_for(function() return snacks.opts end, 20000, "Snacks.picker.pick(opts)")
  local opts = snacks.opts
  H.eq(true, opts.live, "live: the search goes to the finder as you type")
  H.eq(QUERY, opts.search, "the typed text is the search")
  -- snacks' "preview" previewer (wrapped: a result of extracted text previews that text's buffer): each item says
  -- how, a result as its file ("file") at its pos, a notice as its text
  H.eq("function", type(opts.preview), "each item's own preview")
  local items = opts.finder({}, { filter = { search = QUERY } })
  H.eq(#direct.chunks, #items, "one item per result")
  local item = items[1]
  H.eq(picker.format(best), item.text, "text")
  H.eq("file", item.preview, "file preview at the item's pos")
  H.eq({ best_focus.start.line + 1, 0 }, item.pos, "pos: the focus line (1-based), column 0")
  H.eq(vim.fs.joinpath(vim.uv.fs_realpath(H.workspace), best.source.path), vim.uv.fs_realpath(item.file), "file")
  -- end_pos: the end of the last focus line (snacks' preview lights pos..end_pos, so {last, 0} left it unlit)
  local last = vim.fn.readfile(item.file)[item.end_pos[1]]
  H.eq(#last, item.end_pos[2], "end_pos at the end of its line " .. item.end_pos[1])
  H.ok(item.end_pos[1] >= item.pos[1] and #last > 0, vim.inspect(item.end_pos))
  H.eq({ { item.text } }, opts.format(item), "format")
  local closed = 0
  local fake_picker = { close = function() closed = closed + 1 end }
  opts.confirm(fake_picker, item)
  H.eq(1, closed, "closed before opening")
  assert_opened("snacks confirm")
  H.eq("ragls_quickfix", opts.win.input.keys["<C-q>"][1], "<C-q> runs the quickfix action")
  opts.actions.ragls_quickfix(fake_picker)
  assert_quickfix("snacks <C-q>")
end)

-- fzf-lua ---------------------------------------------------------------------------------------------------------
local fzf
local function install_fzf_standin()
  fzf = {}
  package.preload["fzf-lua"] = function()
    return { fzf_live = function(contents, opts) fzf.contents, fzf.opts = contents, opts end }
  end
end

--- Run fzf-lua's contents function for `args` the way fzf-lua does: it calls back once per line, then with nothing.
local function fzf_lines(args)
  local lines, done = {}, false
  fzf.contents(args)(function(line)
    if line == nil then
      done = true
    else
      table.insert(lines, line)
    end
  end)
  H.wait_for(function() return done end, 20000, "the end of the contents")
  return lines
end

H.it("fzf-lua stand-in (not the real plugin): fzf_live re-queries per query, default action opens, ctrl-q", function()
  remove_standins()
  install_fzf_standin()
  reset()
  H.eq("fzf-lua", picker.backend(), "backend")
  vim.cmd("RagQuery " .. QUERY)
  H.wait_for(function() return fzf.opts end, 20000, "fzf_live(contents, opts)")
  H.eq(QUERY, fzf.opts.query, "the typed text is the query")
  H.eq(formatted(direct.chunks), fzf_lines({ QUERY }), "args[1] is the query")
  H.eq(formatted(direct.chunks), fzf_lines(QUERY), "older fzf-lua: the query string")
  local other = fzf_lines({ "where are backups stored" })
  H.ok(other[1] ~= formatted(direct.chunks)[1], "another query, other results: " .. vim.inspect(other))
  H.eq({}, fzf_lines({ "" }), "an empty query lists nothing")
  fzf_lines({ QUERY })
  fzf.opts.actions["default"]({ formatted(direct.chunks)[1] })
  assert_opened("fzf-lua default")
  fzf.opts.actions["ctrl-q"]()
  assert_quickfix("fzf-lua ctrl-q")
end)

remove_standins()
H.finish()
