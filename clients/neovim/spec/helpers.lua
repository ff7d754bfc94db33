-- Tiny test harness for the ragls Neovim specs; run with `nvim --headless --clean -l spec/<name>_spec.lua`.
--
-- Environment (set by tests/clients/test_neovim.py):
--   RAGLS_TEST_WORKSPACE   a temporary copy of spec/fixtures/workspace with a ragls.toml for offline tests
--   RAGLS_TEST_SERVER_CMD  JSON list, the server command (e.g. [".../python", "-m", "ragls", "serve"])
-- Each `it` runs in order; a failure is reported and the run continues. `finish()` stops the servers and exits
-- with 0 only if every test passed.

local H = {}

local script = arg and arg[0] or debug.getinfo(1, "S").source:sub(2)
H.spec_dir = vim.fs.dirname(vim.fn.fnamemodify(script, ":p"))
H.plugin_dir = vim.fs.dirname(H.spec_dir)
H.fixture_dir = vim.fs.joinpath(H.spec_dir, "fixtures", "workspace")
H.workspace = os.getenv("RAGLS_TEST_WORKSPACE")
H.server_cmd = os.getenv("RAGLS_TEST_SERVER_CMD") and vim.json.decode(os.getenv("RAGLS_TEST_SERVER_CMD")) or nil

local passed, failed = 0, 0

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end
H.out = out

-- Notifications are recorded (and echoed to stdout for the pytest log).
H.notes = {}
--- Neovim's own vim.notify, for a spec that wants to see what a user without notification plugins sees.
H.real_notify = vim.notify
-- `opts` is kept too (progress notifications carry an `id` to replace); the return value stands in for a
-- notification plugin's record.
function H.notify_recorder(msg, level, opts)
  table.insert(H.notes, { msg = msg, level = level or vim.log.levels.INFO, opts = opts or {} })
  out(("  [notify %s] %s"):format(tostring(level), msg))
  return { id = #H.notes }
end
vim.notify = H.notify_recorder
vim.notify_once = function(msg, level, opts)
  for _, n in ipairs(H.notes_once or {}) do
    if n == msg then
      return false
    end
  end
  H.notes_once = H.notes_once or {}
  table.insert(H.notes_once, msg)
  vim.notify(msg, level, opts)
  return true
end

--- Notifications whose text contains `needle` (plain).
function H.notes_matching(needle)
  local found = {}
  for _, n in ipairs(H.notes) do
    if n.msg:find(needle, 1, true) then
      table.insert(found, n)
    end
  end
  return found
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(("%s: expected %s, got %s"):format(what or "value", vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

function H.ok(cond, what)
  if not cond then
    error(what or "assertion failed", 2)
  end
end

--- Plain-text `find`.
function H.contains(haystack, needle, what)
  if type(haystack) ~= "string" or not haystack:find(needle, 1, true) then
    error(("%s: %s does not contain %s"):format(what or "text", vim.inspect(haystack), vim.inspect(needle)), 2)
  end
end

--- vim.wait for `cond`, error with `what` on timeout. Returns cond's last truthy value.
function H.wait_for(cond, timeout_ms, what)
  local value
  local ok = vim.wait(timeout_ms, function()
    value = cond()
    return value and true or false
  end, 50)
  if not ok then
    error(("timed out after %d ms waiting for %s"):format(timeout_ms, what or "condition"), 2)
  end
  return value
end

function H.it(name, fn)
  local columns, lines = vim.o.columns, vim.o.lines
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    out("ok - " .. name)
  else
    failed = failed + 1
    out("not ok - " .. name .. "\n" .. tostring(err))
    -- a failed test leaves its floats open: close them, so the next test starts clean
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      -- (closing one float can close others: fzf-lua's preview goes with its list)
      if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_config(win).relative ~= "" then
        pcall(vim.api.nvim_win_close, win, true)
      end
    end
    -- and the editor's size it found: headless, no UI resizes the screen to a changed 'columns', and the next
    -- redraw with two tab pages aborted Neovim (`draw_tabline: Assertion tab_page_click_defs_size >= Columns`,
    -- exit -6: notices_spec's :checkhealth tab after its :RagStatus test at 120 columns failed, in CI)
    vim.o.columns, vim.o.lines = columns, lines
  end
end

--- Put the plugin on 'runtimepath', source plugin/ragls.lua and call setup(opts).
function H.load_plugin(opts)
  vim.opt.runtimepath:prepend(H.plugin_dir)
  vim.cmd("filetype plugin on")
  vim.cmd.runtime("plugin/ragls.lua")
  return require("ragls").setup(opts)
end

--- Setup with the test server command and the workspace as cwd.
function H.load_plugin_for_workspace(extra)
  assert(H.workspace, "RAGLS_TEST_WORKSPACE is not set (run through tests/clients/test_neovim.py)")
  assert(H.server_cmd, "RAGLS_TEST_SERVER_CMD is not set (run through tests/clients/test_neovim.py)")
  vim.cmd.cd(vim.fn.fnameescape(H.workspace))
  return H.load_plugin(vim.tbl_extend("force", { cmd = H.server_cmd }, extra or {}))
end

--- Trust the workspace's ragls.toml again as the user would, with `ragls trust` run by the test's server command
--- (an edit of the file revokes its trust). Raises when the command fails.
function H.trust_workspace()
  local cmd = vim.deepcopy(H.server_cmd)
  cmd[#cmd] = "trust" -- "serve" -> "trust"
  table.insert(cmd, H.workspace)
  local trusted = vim.system(cmd, { text = true }):wait()
  assert(trusted.code == 0, "ragls trust failed: " .. (trusted.stderr or ""))
end

--- Synchronous request on a client (0.10/0.11).
function H.request_sync(client, method, params, timeout_ms)
  local resp
  if vim.fn.has("nvim-0.11") == 1 then
    resp = client:request_sync(method, params, timeout_ms or 20000, 0)
  else
    resp = client.request_sync(method, params, timeout_ms or 20000, 0)
  end
  assert(resp, method .. ": no response within timeout")
  return resp
end

--- Open `rel` in the workspace, wait for the ragls client to attach and the initial indexing to finish
--- (rag/status: at least `min_files` files, nothing pending). Returns the client.
function H.open_and_wait_indexed(rel, min_files, timeout_ms)
  timeout_ms = timeout_ms or 120000
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, rel)))
  local client = H.wait_for(function()
    local c = vim.lsp.get_clients({ name = "ragls", bufnr = 0 })[1]
    return c and c.initialized and c
  end, timeout_ms, "the ragls client to attach and initialize")
  H.wait_for(function()
    local resp = H.request_sync(client, "rag/status", vim.empty_dict())
    if resp.err then
      error("rag/status failed: " .. vim.inspect(resp.err))
    end
    local folder = resp.result.folders and resp.result.folders[1]
    -- Every window embedded (pendingWindows is null when unknown) and the work-done progress ended: the
    -- status answer can overtake the progress `end` notification, and an ask sent before it says "still indexing".
    local windows = folder and folder.pendingWindows
    return folder and folder.files >= min_files and folder.pending == 0 and (folder.pendingVectors or 0) == 0
      and (windows == nil or windows == vim.NIL or windows == 0) and not require("ragls.progress").indexing()
  end, timeout_ms, "the initial indexing to finish")
  return client
end

--- 1-based line number of the first line of a workspace file containing `needle`.
function H.line_of(rel, needle)
  local lines = vim.fn.readfile(vim.fs.joinpath(H.workspace or H.fixture_dir, rel))
  for i, l in ipairs(lines) do
    if l:find(needle, 1, true) then
      return i
    end
  end
  error(("%s does not contain %q"):format(rel, needle))
end

--- Workspace-relative path of a file name.
function H.rel(path)
  local root = vim.fs.normalize(vim.uv.fs_realpath(H.workspace) or H.workspace)
  path = vim.fs.normalize(vim.uv.fs_realpath(path) or path)
  if path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2)
  end
  return path
end

--- Windows that are floating.
function H.floats()
  local wins = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      table.insert(wins, w)
    end
  end
  return wins
end

--- Close every floating window.
function H.close_floats()
  for _, w in ipairs(H.floats()) do
    if vim.api.nvim_win_is_valid(w) then -- (closing one float can close others: a picker's preview goes with it)
      vim.api.nvim_win_close(w, true)
    end
  end
end

--- Run `cmd` (a :RagAsk) with no float open and wait for its finished answer float; returns its window, buffer and
--- the rag/ask result it shows.
---@return integer win, integer buf, table result
function H.ask_float(cmd)
  H.close_floats()
  vim.cmd(cmd)
  local win = H.wait_for(function()
    local w = H.floats()[1]
    return w and vim.b[vim.api.nvim_win_get_buf(w)].ragls_result ~= nil and w
  end, 60000, "the answer of: " .. cmd)
  local buf = vim.api.nvim_win_get_buf(win)
  return win, buf, vim.b[buf].ragls_result
end

--- A source's line as the answer float shows it: its range's hyphen the non-breaking one
--- (answer_text.SHOWN_RANGE_DASH).
function H.shown_source(source)
  return require("ragls.ui").source_line(source, require("ragls.answer_text").SHOWN_RANGE_DASH)
end

--- The line of `buf` that is `text`, or that starts it when the float wrapped it (a source line wider than the
--- float: answer_text.wrap_source_line, after a "/" of its path or at a space, the rest hanging under it).
---@return integer? lnum 1-based
function H.find_line(buf, text)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, l in ipairs(lines) do
    if l == text then
      return i
    end
    local joined, j = l, i
    while l ~= "" and #joined < #text and vim.startswith(text, joined) and (lines[j + 1] or ""):match("^%s+%S") do
      j = j + 1
      joined = joined .. (joined:sub(-1) == "/" and "" or " ") .. vim.trim(lines[j])
    end
    if j > i and joined == text then
      return i
    end
  end
end

--- The source of a rag/ask `result` whose range holds the fixture's line stating the frobnicator timeout
--- ("defaults to 42 seconds" in guide/frobnicator.md), or nil.
function H.frobnicator_source(result)
  for _, s in ipairs(result.sources) do
    if s.path == "guide/frobnicator.md" then
      local target = H.line_of("guide/frobnicator.md", "defaults to 42 seconds") - 1
      if s.range.start.line <= target and target <= s.range["end"].line then
        return s
      end
    end
  end
end

--- The last of `sources` (a rag/ask result's) for which `pred(source)` is true, or nil: a later source wins, as the
--- specs' own loops over the sources had it.
function H.last_source(sources, pred)
  local found
  for _, s in ipairs(sources) do
    if pred(s) then
      found = s
    end
  end
  return found
end

--- What `fn(...)` returns, run while each `method` request the plugin sends (`ragls.rpc.client_request`) is first
--- given to `on_params(params)`, then sent on unchanged. The plugin's own function is back before this returns, also
--- when `fn` fails, whose error is raised again then.
function H.with_request_spy(method, on_params, fn, ...)
  local rpc = require("ragls.rpc")
  local orig = rpc.client_request
  rpc.client_request = function(c, m, params, handler, bufnr)
    if m == method then
      on_params(params)
    end
    return orig(c, m, params, handler, bufnr)
  end
  local res = vim.F.pack_len(pcall(fn, ...))
  rpc.client_request = orig
  assert(res[1], res[2])
  return unpack(res, 2, res.n)
end

--- Screenshots. Headless Neovim has no terminal, so a real one is attached for the moment of the shot: Neovim's
--- own TUI (`nvim --server <this> --remote-ui`) in a pty of the editor's size (no resize). Its output (the
--- escape sequences a terminal would get, truecolor) is saved to `$RAGLS_TEST_SCREENSHOTS/<name>.ansi`; the pytest
--- runner replays it in a terminal emulator (pyte) and draws the cells, colours and all, to a PNG. The screen text
--- (`screenstring()`, one line per row) is saved beside it as `<name>.txt`.
local shot_seq = 0

--- Attach the TUI; returns { job, chunks, text(), on_output? }.
--- While it is attached, messages never wait for a key (hit-enter becomes 'messagesopt' wait:0): a spec's vim.wait
--- does not redraw, so messages that arrive meanwhile (progress echoed during a first index) pile up into a
--- hit-enter prompt once a UI is attached, and `nvim -l` reads that key from its closed stdin and exits 0 mid-spec
--- (picker_spec "ran no tests" under load).
local function attach_tui()
  vim.o.termguicolors = true -- what the TUI of a truecolor terminal turns on at start-up
  local tui = { chunks = {} }
  if vim.fn.exists("+messagesopt") == 1 then
    tui.messagesopt = vim.o.messagesopt
    vim.o.messagesopt = vim.o.messagesopt:gsub("hit%-enter", "wait:0")
  end
  function tui.text()
    return table.concat(tui.chunks)
  end
  -- `env -u NVIM`: the TUI refuses a server whose address is in $NVIM (set for every job) as a :terminal's parent.
  tui.job = vim.fn.jobstart({ "env", "-u", "NVIM", vim.v.progpath, "--server", vim.v.servername, "--remote-ui" }, {
    pty = true,
    width = vim.o.columns,
    height = vim.o.lines,
    env = { TERM = "xterm-256color", COLORTERM = "truecolor" },
    on_stdout = function(_, data)
      table.insert(tui.chunks, table.concat(data, "\n"))
      if tui.on_output then
        tui.on_output(tui)
      end
    end,
  })
  assert(tui.job > 0, "could not start the screenshot UI: " .. vim.v.progpath)
  H.wait_for(function() return #vim.api.nvim_list_uis() > 0 end, 20000, "the screenshot UI to attach")
  return tui
end

local function detach_tui(tui)
  vim.fn.jobstop(tui.job)
  H.wait_for(function() return #vim.api.nvim_list_uis() == 0 end, 20000, "the screenshot UI to detach")
  if tui.messagesopt then
    vim.o.messagesopt = tui.messagesopt
  end
end

--- Redraw and wait until the TUI has written that redraw: the title is set to a fresh marker with the redraw, and
--- a second marker redraw after the first is seen guarantees every byte of the first redraw batch has arrived.
--- (`redraw`, not `redraw!`: that would clear the message line, where progress and prompts show.)
local function settle(tui)
  local title, titlestring = vim.o.title, vim.o.titlestring
  vim.o.title = true
  for i = 1, 2 do
    shot_seq = shot_seq + 1
    local marker = ("ragls-screenshot-%d"):format(shot_seq)
    vim.o.titlestring = marker
    vim.cmd("redraw")
    H.wait_for(function() return tui.text():find(marker, 1, true) end, 20000, "the screenshot UI to draw")
  end
  local text = tui.text()
  vim.o.title, vim.o.titlestring = title, titlestring
  return text
end

local function screen_text()
  local rows = {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      cells[#cells + 1] = vim.fn.screenstring(r, c)
    end
    rows[#rows + 1] = table.concat(cells)
  end
  return rows
end

--- The screen's rows as text (`screenstring()`, floats included), e.g. from inside |H.with_ui()| after a redraw.
H.screen_text = screen_text

local function save_shot(name, ansi)
  local dir = os.getenv("RAGLS_TEST_SCREENSHOTS")
  vim.fn.mkdir(dir, "p")
  local f = assert(io.open(vim.fs.joinpath(dir, name .. ".ansi"), "wb"))
  f:write(ansi)
  f:close()
  vim.fn.writefile({ vim.json.encode({ columns = vim.o.columns, lines = vim.o.lines }) },
    vim.fs.joinpath(dir, name .. ".size.json"))
  vim.fn.writefile(screen_text(), vim.fs.joinpath(dir, name .. ".txt"))
end

--- Run `fn` with a real UI attached (the screenshot TUI), for code that only runs with one (vim.secure's prompt).
---@return any what fn returned
function H.with_ui(fn)
  local tui = attach_tui()
  local ok, result = pcall(fn)
  detach_tui(tui)
  assert(ok, result)
  return result
end

--- Redraw with a UI attached (|H.with_ui()|) and find the first screen row that holds `needle` (plain text) or for
--- which `needle(row)` is true. Returns the rows (|H.screen_text()|) and that row's index; fails with the whole
--- screen when no row matches.
---@param needle string|fun(row: string): boolean
---@return string[] rows, integer at
function H.screen_row(needle)
  local rows = H.with_ui(function()
    vim.cmd("redraw")
    return screen_text()
  end)
  local match = type(needle) == "function" and needle or function(r) return r:find(needle, 1, true) ~= nil end
  local at = vim.iter(ipairs(rows)):find(function(_, r) return match(r) end)
  if not at then
    error(("no screen row with %s:\n%s"):format(type(needle) == "string" and vim.inspect(needle) or "that",
      table.concat(rows, "\n")), 2)
  end
  return rows, at
end

--- Save a screenshot of the screen as it is now (see above). No-op outside the pytest runner.
---@param name string
function H.screenshot(name)
  if not os.getenv("RAGLS_TEST_SCREENSHOTS") then
    return
  end
  local tui = attach_tui()
  local ok, err = pcall(function()
    save_shot(name, settle(tui))
  end)
  detach_tui(tui)
  assert(ok, err)
end

--- Stop every LSP client, then exit with the result.
function H.finish()
  local clients = vim.lsp.get_clients()
  for _, c in ipairs(clients) do
    if vim.fn.has("nvim-0.11") == 1 then
      c:stop()
    else
      c.stop()
    end
  end
  vim.wait(10000, function()
    return #vim.lsp.get_clients() == 0
  end, 50)
  out(("%d passed, %d failed"):format(passed, failed))
  os.exit(failed == 0 and passed > 0 and 0 or 1)
end

return H
