-- Plugin pieces that need no server: config validation, commit insertion, `$/progress` routing, the trust
-- prompt's line, and the "server not found" path (:RagQuery, :RagChat and :checkhealth). Rendering answers and
-- sources without a server: answer_render_spec.lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin({ cmd = { "ragls-not-installed-xyz", "serve" } })
local config = require("ragls.config")
local rpc = require("ragls.rpc")
local server = require("ragls.server")
local trust = require("ragls.trust")
local ui = require("ragls.ui")

H.it("plugin/ragls.lua defines the user commands", function()
  local cmds = vim.api.nvim_get_commands({})
  for _, name in ipairs({ "RagAsk", "RagQuery", "RagRebuild", "RagStatus", "RagTrust", "RagCommit", "RagLast", "RagIndex" }) do
    H.ok(cmds[name], name .. " is defined")
  end
  H.eq(true, cmds.RagAsk.range ~= nil and cmds.RagAsk.range ~= "", "RagAsk accepts a range")
end)

H.it("setup rejects bad options with a message naming the field and keeps the previous ones", function()
  H.eq("ragls-not-installed-xyz", config.values.cmd[1], "cmd before")
  local ok = require("ragls").setup({ cmd = "ragls serve" })
  H.eq(false, ok, "setup result")
  H.contains(H.notes[#H.notes].msg, "`cmd` must be a non-empty list of strings")
  H.eq("ragls-not-installed-xyz", config.values.cmd[1], "cmd kept")
  local ok2, err2 = config.set({ keymaps = { ask = "<leader>a", nope = "x" } })
  H.eq(false, ok2, "unknown keymap rejected")
  H.contains(err2, "unknown keymap `nope`")
  local ok3, err3 = config.set({ top_k = 0 })
  H.eq(false, ok3, "top_k 0 rejected")
  H.contains(err3, "top_k")
  local ok4, err4 = config.set({ search_top_k = 500 })
  H.eq(false, ok4, "search_top_k 500 rejected")
  H.contains(err4, "`search_top_k` must be a whole number from 1 to 200")
  H.ok(config.set({ cmd = { "ragls-not-installed-xyz", "serve" } }), "valid options accepted")
end)

H.it("setup checks `float` fields and rejects unknown options, naming the field and keeping the previous ones", function()
  local before = vim.deepcopy(config.values)
  H.eq(false, require("ragls").setup({ float = { border = "bogus" } }), "setup result")
  H.contains(H.notes[#H.notes].msg, "`float.border`")
  for _, case in ipairs({
    { { float = { width = "wide" } }, "`float.width`" },
    { { float = { height = 0 } }, "`float.height`" },
    { { float = { width = 1.5 } }, "`float.width`" },
    { { float = { border = { "x", "y", "z" } } }, "`float.border`" },
    { { float = { border = { "ab" } } }, "`float.border`" },
    { { float = { boder = "single" } }, "unknown option `float.boder`" },
    { { float = "rounded" }, "`float` must be a table" },
    { { auto_start = false }, "unknown option `auto_start`" },
  }) do
    local ok, err = config.set(case[1])
    H.eq(false, ok, "rejected: " .. vim.inspect(case[1]))
    H.contains(err, case[2])
  end
  H.eq(before, config.values, "previous options kept")
  -- Every accepted form opens a float (what :RagStatus and :RagAsk do).
  for _, float in ipairs({
    { border = "single" },
    { border = "none" },
    { border = { "+", "-", "+", "|", "+", "-", "+", "|" } },
    { border = { { "*", "Comment" } } },
    { width = 1, height = 1 },
    { width = 50, height = 10 },
  }) do
    local ok, err = config.set({ cmd = { "ragls-not-installed-xyz", "serve" }, float = float })
    H.eq(true, ok, "accepted: " .. vim.inspect(float) .. " " .. tostring(err))
    local _, win = ui.open_float({ "x" }, { title = "t" })
    if float.width == 50 then
      H.eq(50, vim.api.nvim_win_get_width(win), "absolute width in columns")
      H.eq(10, vim.api.nvim_win_get_height(win), "absolute height in lines")
    end
    vim.api.nvim_win_close(win, true)
  end
  config.set({ cmd = { "ragls-not-installed-xyz", "serve" } })
end)

H.it("keymaps: false → none, true → defaults, table → only the given ones", function()
  config.set({ cmd = { "x" }, keymaps = false })
  H.eq({}, config.keymaps(), "false")
  config.set({ cmd = { "x" }, keymaps = true })
  H.eq(config.default_keymaps, config.keymaps(), "true")
  config.set({ cmd = { "x" }, keymaps = { ask = "<leader>?", status = false } })
  H.eq({ ask = "<leader>?" }, config.keymaps(), "table")
  config.set({ cmd = { "ragls-not-installed-xyz", "serve" } })
end)

H.it("a ragls.toml Neovim will ask about gets a line saying what allowing it changes, fitting the echo area", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local toml = vim.fs.joinpath(dir, "ragls.toml")
  vim.fn.writefile({ "[generation]", 'backend = "openai"' }, toml)
  local db = vim.fs.joinpath(vim.fn.stdpath("state"), "trust")
  vim.fn.mkdir(vim.fn.stdpath("state"), "p")
  local saved = vim.fn.filereadable(db) == 1 and vim.fn.readfile(db) or nil
  local real = vim.uv.fs_realpath(toml)
  vim.fn.writefile({}, db)
  H.eq(true, trust.trust_will_ask(toml), "not in the trust database: asked")
  vim.fn.writefile({ vim.fn.sha256(table.concat(vim.fn.readfile(toml), "\n") .. "\n") .. " " .. real }, db)
  H.eq(false, trust.trust_will_ask(toml), "this version allowed: not asked")
  vim.fn.writefile({ "[generation]", 'backend = "ollama"' }, toml)
  H.eq(true, trust.trust_will_ask(toml), "edited since: asked again")
  vim.fn.writefile({ "! " .. real }, db)
  H.eq(false, trust.trust_will_ask(toml), "denied: not asked")
  if saved then
    vim.fn.writefile(saved, db)
  else
    os.remove(db)
  end
  local text = require("ragls.text")
  H.eq(trust.trust_context[1], text.longest_fitting(trust.trust_context, 200), "wide: the whole sentence")
  local narrow = text.longest_fitting(trust.trust_context, 50)
  H.ok(narrow and vim.fn.strdisplaywidth(narrow) <= 46, "narrow echo area: a shorter one: " .. tostring(narrow))
end)

H.it("ui.input hands on the answer without its spaces, and nothing when it is cancelled or blank", function()
  local input, got = vim.ui.input, {}
  for _, answer in ipairs({ "  frobnicator timeout \t", "   ", "", false }) do
    vim.ui.input = function(_, on_confirm)
      on_confirm(answer or nil)
    end
    ui.input({ prompt = "Ask ragls: " }, function(text)
      table.insert(got, text)
    end)
  end
  vim.ui.input = input
  H.eq({ "frobnicator timeout" }, got, "texts handed on")
end)

H.it("insert_commit_message puts the message above the comment lines", function()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "", "# Please enter the commit message", "#", "# On branch main" })
  ui.insert_commit_message(buf, "docs: explain backups\n\nLonger body.\n")
  H.eq({ "docs: explain backups", "", "Longer body.", "", "# Please enter the commit message", "#", "# On branch main" },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false), "template buffer")
  local typed = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(typed, 0, -1, false, { "WIP: my words", "", "# comment" })
  ui.insert_commit_message(typed, "docs: more")
  H.eq({ "WIP: my words", "", "docs: more", "", "# comment" }, vim.api.nvim_buf_get_lines(typed, 0, -1, false),
    "user text kept")
  local empty = vim.api.nvim_create_buf(false, true)
  ui.insert_commit_message(empty, "fix: x")
  H.eq({ "fix: x" }, vim.api.nvim_buf_get_lines(empty, 0, -1, false), "empty buffer")
end)

H.it("$/progress values with `delta` go to their stream, not to the work-done progress", function()
  local got = {}
  local token = rpc.open_stream(function(d)
    table.insert(got, d)
  end)
  local r = rpc.progress_handler(nil, { token = token, value = { delta = "Hel" } }, { client_id = 999 }, {})
  rpc.progress_handler(nil, { token = token, value = { delta = "lo" } }, { client_id = 999 }, {})
  H.eq(vim.NIL, r, "handler result")
  H.eq({ "Hel", "lo" }, got, "deltas")
  rpc.close_stream(token)
  rpc.progress_handler(nil, { token = token, value = { delta = "late" } }, { client_id = 999 }, {})
  H.eq({ "Hel", "lo" }, got, "closed stream ignores deltas")
end)

H.it("a server that stops mid-index leaves no 'indexing' behind: its progress is forgotten, another's kept", function()
  local progress = require("ragls.progress")
  progress.on_progress({ token = "dead", value = { kind = "begin", title = "ragls: indexing", message = "12/80 files",
    percentage = 15 } }, 999)
  progress.on_progress({ token = "alive", value = { kind = "begin", title = "ragls: indexing", message = "3/9 files",
    percentage = 33 } }, 998)
  H.ok(progress.indexing(), "indexing")
  server.on_exit(0, 9, 999) -- the server of client 999 was killed
  H.wait_for(function() return progress.active.dead == nil end, 5000, "the dead server's progress to go")
  H.ok(progress.active.alive ~= nil, "the other server's progress stays")
  H.ok(not progress.statusline():find("12/80", 1, true), progress.statusline())
  server.on_exit(0, 0, 998)
  H.wait_for(function() return not progress.indexing() end, 5000, "no indexing left")
  H.eq("", progress.statusline(), "the statusline of a buffer no client serves")
end)

-- A project for the commands below (outside one they would say "not inside a project" instead).
local project = vim.fn.tempname() .. "-project"
vim.fn.mkdir(project, "p")
vim.fn.writefile({}, project .. "/ragls.toml")

H.it("a missing server command is reported with install instructions", function()
  vim.cmd.cd(vim.fn.fnameescape(project))
  H.notes = {}
  vim.cmd("RagQuery! frobnicator")
  local notes = H.notes_matching("ragls-not-installed-xyz")
  H.eq(1, #notes, "one notification")
  H.contains(notes[1].msg, "python3 -m pip install '/path/to/ragls[offline]'")
  H.contains(notes[1].msg, "pip install -e .")
  H.eq(vim.log.levels.ERROR, notes[1].level, "level")
  H.eq(0, #vim.lsp.get_clients(), "no client")
end)

H.it("a missing server command warns once, only when a :Rag* command is used, never from attaching", function()
  H.notes = {}
  H.notes_once = {}
  for _, name in ipairs({ "one.md", "two.md", "three.md" }) do
    vim.fn.writefile({ "x" }, project .. "/" .. name)
    vim.cmd.edit(vim.fn.fnameescape(project .. "/" .. name))
    vim.wait(200, function() return false end) -- let the scheduled attach run
  end
  H.eq(0, #H.notes_matching("not found"), "opening files says nothing")
  vim.cmd("RagStatus")
  vim.cmd("RagQuery! frobnicator")
  vim.cmd("RagAsk How long?")
  H.eq(1, #H.notes_matching("server command `ragls-not-installed-xyz` not found"), "one warning for three commands")
  vim.cmd("%bwipeout!")
end)

H.it(":RagChat with a missing server command: the turn says why, with the install hint (it said '…' for good)", function()
  vim.cmd.cd(vim.fn.fnameescape(project))
  vim.cmd.edit(vim.fn.fnameescape(project .. "/one.md"))
  H.notes = {}
  local chat = require("ragls.chat")
  local turn = chat.ask("How long is the frobnicator timeout?")
  H.eq("error", turn.status, "the turn's status")
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.thread.buf, 0, -1, false), "\n")
  H.contains(text, "**Error:** ragls: server command `ragls-not-installed-xyz` not found.")
  H.contains(text, "python3 -m pip install '/path/to/ragls[offline]'")
  H.eq(nil, text:find("_…_", 1, true), "no pending placeholder")
  H.eq(0, #H.notes_matching("not found"), "said in the chat, not besides")
  vim.cmd("only")
  vim.cmd("%bwipeout!")
end)

H.it(":checkhealth ragls reports the missing server as an ERROR with the install hint", function()
  vim.cmd("checkhealth ragls")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.eq("checkhealth", vim.bo.filetype, "health buffer")
  H.contains(text, "ERROR ragls: server command `ragls-not-installed-xyz` not found")
  H.contains(text, "OK setup() options are valid")
  H.contains(text, "python3 -m pip install")
end)

H.it(":checkhealth ragls says which keymaps are set, how to set them, and a key another plugin maps too", function()
  local function health()
    vim.cmd("checkhealth ragls")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.cmd("bwipeout")
    return text
  end
  local before = vim.deepcopy(config.values)
  H.ok(config.set({ cmd = before.cmd, keymaps = false }), "no keymaps")
  H.contains(health(), "- keymaps: none (the default): `keymaps = true` in setup() maps <leader>ra ask, <leader>rq "
    .. "search, <leader>rs status, <leader>rc commit message, <leader>rl last answer where ragls is attached; or map "
    .. "the <Plug> mappings, :help |ragls-mappings|") -- checkhealth makes it a help link
  vim.g.mapleader = " "
  vim.keymap.set("n", "<leader>rq", "<cmd>echo 'grep'<CR>", { desc = "another plugin's grep" })
  H.ok(config.set({ cmd = before.cmd, keymaps = true }), "default keymaps")
  local text = health()
  H.contains(text, "OK keymaps: <leader>ra ask, <leader>rq query, <leader>rs status, <leader>rc commit, "
    .. "<leader>rl last")
  H.contains(text, "WARNING keymaps: <leader>rq (query) is also mapped globally in mode n to another plugin's grep")
  H.ok(not text:find("<leader>ra (ask) is also", 1, true), "only the key in use: " .. text)
  vim.keymap.del("n", "<leader>rq")
  vim.g.mapleader = nil
  H.ok(config.set(before), "restore")
end)

H.it(":checkhealth ragls shows why `cmd ... --version` failed instead of guessing", function()
  H.ok(H.server_cmd, "RAGLS_TEST_SERVER_CMD is set")
  local cmd = { H.server_cmd[1], "-m", "ragls", "bogus" }
  H.ok(config.set({ cmd = cmd }), "setup")
  vim.cmd("checkhealth ragls")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "OK server command found: " .. table.concat(cmd, " "))
  H.contains(text, ("`%s --version` failed (exit 2): "):format(table.concat(cmd, " ")))
  H.contains(text, "invalid choice: 'bogus'", "the error line of its stderr")
  H.ok(not text:find("old ragls", 1, true), "no guess: " .. text)
  vim.cmd("bwipeout")
  H.ok(config.set({ cmd = { "ragls-not-installed-xyz", "serve" } }), "restore")
end)

H.it(":help ragls works from a packpath install: doc/tags ships with the plugin and is up to date", function()
  local pack = vim.fn.tempname() .. "-site"
  local dest = pack .. "/pack/ragls/start/ragls"
  vim.fn.mkdir(vim.fs.dirname(dest), "p")
  vim.uv.fs_symlink(H.plugin_dir, dest)
  vim.opt.packpath:prepend(pack)
  vim.opt.runtimepath:remove(H.plugin_dir)
  vim.cmd("packloadall!")
  H.ok(vim.tbl_contains(vim.api.nvim_get_runtime_file("doc/ragls.txt", true), dest .. "/doc/ragls.txt"),
    "the help file is found in the pack: " .. vim.inspect(vim.api.nvim_get_runtime_file("doc/ragls.txt", true)))
  for _, tag in ipairs({ "ragls", ":RagAsk", ":RagQuery", ":RagQuery!", ":RagLast", ":RagIndex", ":RagCommit",
    "ragls-config-keymaps", "ragls.setup()", "ragls-mappings", "ragls.statusline()", "ragls-protocol" }) do
    local ok, err = pcall(vim.cmd.help, tag)
    H.ok(ok, ("help %s: %s"):format(tag, tostring(err)))
    H.eq("ragls.txt", vim.fn.expand("%:t"), "help file for " .. tag)
    H.contains(vim.api.nvim_get_current_line(), "*" .. tag .. "*")
    vim.cmd("helpclose")
  end
  -- The shipped tags are what :helptags makes of doc/ragls.txt now.
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp .. "/doc", "p")
  vim.fn.writefile(vim.fn.readfile(H.plugin_dir .. "/doc/ragls.txt"), tmp .. "/doc/ragls.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(tmp .. "/doc")) -- errors on duplicate tags
  H.eq(vim.fn.readfile(tmp .. "/doc/tags"), vim.fn.readfile(H.plugin_dir .. "/doc/tags"),
    "doc/tags is current (regenerate: nvim --clean --headless -c 'helptags clients/neovim/doc' -c q)")
end)

H.it("the wait for a server that has gone fails once, with no Lua error from ticks queued behind a prompt", function()
  -- A server that exits while it starts (a Python without ragls' libraries): Neovim's "Client ragls quit with
  -- exit code 1" waits on a hit-enter prompt, the wait's timer ticks pile up meanwhile, and each one after the
  -- first closed the closed timer: "Error executing vim.schedule lua callback: ... handle ... is already closing".
  local fails = {}
  vim.v.errmsg = ""
  server.when_initialized({ id = 424242, initialized = false }, function() error("the wait must not run fn") end,
    { on_fail = function(msg) table.insert(fails, msg) return true end })
  -- libuv alone, as while a prompt waits: the ticks run and queue their scheduled callbacks, none of which runs yet
  local started = vim.uv.hrtime()
  while vim.uv.hrtime() - started < 300e6 do
    vim.uv.run("once")
  end
  vim.wait(200, function() return false end) -- then the queued callbacks run (an error in one is raised here)
  H.eq("", vim.v.errmsg, "no error from a queued tick")
  H.eq(1, #fails, "failed once: " .. vim.inspect(fails))
  H.contains(fails[1], "the server exited during startup")
end)

--- A project folder (a git repository with notes.md) and, in it, `.ragls`: a server that exits while it starts, as
--- a Python without one of ragls' libraries does: a traceback on stderr in two reads (Neovim's log quotes the
--- first with ' since it holds a "), ending "ModuleNotFoundError: No module named '<module>'".
local function broken_server(module)
  local dir = vim.fs.normalize(vim.fn.tempname() .. "-broken")
  vim.fn.mkdir(dir .. "/.git", "p")
  vim.fn.writefile({ "# Notes", "", "Beacons blink in fog." }, dir .. "/notes.md")
  vim.fn.writefile({ "#!/bin/sh", [[echo "Traceback (most recent call last):" >&2]],
    [[echo '  File "<frozen runpy>", line 198, in _run_module_as_main' >&2]], "sleep 0.3",
    ([[echo "ModuleNotFoundError: No module named '%s'" >&2]]):format(module), "exit 1" }, dir .. "/.ragls")
  vim.fn.setfperm(dir .. "/.ragls", "rwxr-xr-x")
  return dir
end

H.it("a server that exits while it starts: the answer float names the Python exception it printed", function()
  -- A Python that imports ragls but not its libraries: the float said only "the server exited during startup";
  -- the reason was in Neovim's LSP log.
  local dir = broken_server("lsprotocol")
  local saved = config.values.cmd
  config.values.cmd = { dir .. "/.ragls", "serve" }
  local ok, err = pcall(function()
    vim.cmd.cd(vim.fn.fnameescape(dir))
    vim.cmd.edit("notes.md")
    vim.cmd("RagAsk How long?")
    local text = H.wait_for(function()
      local w = H.floats()[1]
      local t = w and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
      return t and t:find("exited during startup", 1, true) and t
    end, 30000, "the answer float to say the server exited")
    H.contains(text, "exited during startup: ModuleNotFoundError: No module named 'lsprotocol'")
    H.contains(text, "lacks a library ragls needs")
    -- one message: the float's; neither Neovim's "Client ragls quit with exit code 1 ... Check log for errors"
    -- nor the same words again as a notification
    vim.wait(500, function() return false end)
    local said = vim.tbl_map(function(n) return n.msg end, H.notes_matching("ragls"))
    H.eq({}, vim.tbl_filter(function(m) return m:find("quit with exit code", 1, true) or m:find("startup", 1, true) end,
      said), "no second message")
  end)
  config.values.cmd = saved
  for _, w in ipairs(H.floats()) do
    pcall(vim.api.nvim_win_close, w, true)
  end
  vim.cmd("silent! %bwipeout!")
  assert(ok, err)
end)

H.it("a server that exits as a file opens (autostart): one notification, naming the exception", function()
  -- Neovim's own "Client ragls quit with exit code 1 and signal 0. Check log for errors: <path>" came beside
  -- ragls' message, and ragls' said only "the server stopped (exit code 1)" when Neovim's log quoted the first
  -- piece of the traceback with ' (it holds a ")
  local dir = broken_server("pygls")
  local saved = config.values.cmd
  config.values.cmd = { dir .. "/.ragls", "serve" }
  local before = #H.notes
  local ok, err = pcall(function()
    vim.cmd.cd(vim.fn.fnameescape(dir))
    vim.cmd.edit("notes.md")
    H.wait_for(function() return #H.notes_matching("No module named 'pygls'") > 0 end, 30000,
      "a notification naming the exception")
    vim.wait(500, function() return false end)
    local said = vim.tbl_map(function(n) return n.msg end, { unpack(H.notes, before + 1) })
    H.eq(1, #said, "one message: " .. vim.inspect(said))
    H.contains(said[1], "the server exited during startup: ModuleNotFoundError: No module named 'pygls'")
  end)
  config.values.cmd = saved
  vim.cmd("silent! %bwipeout!")
  assert(ok, err)
end)

if vim.fn.has("nvim-0.11") == 1 then
  H.it("lsp/ragls.lua is found by vim.lsp.config (Neovim 0.11)", function()
    local cfg = vim.lsp.config.ragls
    -- setup()'s `cmd`, started by server.server_cmd (|ragls-server-exit|): a function vim.lsp calls with its dispatchers
    H.eq("function", type(cfg.cmd), "cmd")
    H.eq({ "ragls.toml", ".git" }, cfg.root_markers, "root_markers")
    H.eq("function", type(cfg.handlers["$/progress"]), "streaming-aware $/progress handler")
  end)
end

H.finish()
