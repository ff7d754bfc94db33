-- A snacks.nvim user (LazyVim's notifier, its defaults, no fidget) against the real server: snacks.notifier draws
-- each toast with 'nowrap' at most 0.4 of the editor wide, so a line longer than that is cut at its right edge.
-- ragls' notices say what to do at their end (the crash notice: "run any :Rag* command to restart it") and its
-- indexing progress the percentage, its g? list each key's description: each must be on the screen, not past the
-- toast's edge. The plugin is the real one from ../shared/nvim-plugins ($RAGLS_NVIM_PLUGINS overrides the
-- folder); a clone without it skips.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local repo = vim.fs.dirname(vim.fs.dirname(H.plugin_dir))
local plugins = os.getenv("RAGLS_NVIM_PLUGINS") or vim.fs.joinpath(vim.fs.dirname(repo), "shared", "nvim-plugins")
local snacks_dir = vim.fs.joinpath(plugins, "snacks.nvim")
if vim.fn.isdirectory(snacks_dir) == 0 then
  H.out("# SKIP snacks.nvim not found in " .. plugins)
  H.finish()
  return
end

vim.o.columns, vim.o.lines = 120, 40
vim.opt.runtimepath:prepend(snacks_dir)
-- (toasts stay for the test to read them at any load: snacks closes them after 3 s by default; each test dismisses
-- the earlier ones, `dismiss`, as a new toast shows only where the others leave room)
require("snacks").setup({ notifier = { enabled = true, timeout = 60000 } })

--- Dismiss every toast shown now (the user's `Snacks.notifier.hide()`).
local function dismiss()
  Snacks.notifier.hide()
  H.wait_for(function() return #vim.tbl_filter(function(w)
    return vim.bo[vim.api.nvim_win_get_buf(w)].filetype == "snacks_notif"
  end, vim.api.nvim_list_wins()) == 0 end, 10000, "the toasts dismissed")
end

--- The toasts snacks.notifier shows now: { win, width, lines } each.
local function toasts()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.bo[buf].filetype == "snacks_notif" then
      table.insert(found, { win = win, width = vim.api.nvim_win_get_width(win),
        lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) })
    end
  end
  return found
end

--- The toast whose text (its lines joined by spaces) holds `needle`, once snacks has drawn it. Earlier toasts are
--- dismissed first: snacks shows a new one only where the others leave room (0.6 of the editor's height).
local function toast_with(needle, what)
  local ok, found = pcall(H.wait_for, function()
    for _, t in ipairs(toasts()) do
      if table.concat(t.lines, " "):find(needle, 1, true) then
        return t
      end
    end
  end, 20000, what)
  if not ok then
    error(("%s; the toasts shown: %s"):format(found, vim.inspect(vim.tbl_map(function(t) return t.lines end,
      toasts()))), 2)
  end
  return found
end

--- Every line of toast `t` shows whole: its text area is the window less snacks' padding (a column each side).
local function all_shown(t)
  for _, line in ipairs(t.lines) do
    H.ok(vim.fn.strdisplaywidth(line) <= t.width - 2,
      ("a line within the %d-column toast, not cut at its edge: %q"):format(t.width, line))
  end
end

H.load_plugin_for_workspace()
H.open_and_wait_indexed("README.md", 3)

H.it("g? in an answer float: snacks' toast lists every key whole, a description's rest under its column", function()
  dismiss()
  local win = H.ask_float("RagAsk frobnicator timeout")
  vim.api.nvim_set_current_win(win)
  vim.cmd.normal("g?")
  local t = toast_with("ragls answer keys", "snacks' toast of the answer keys")
  H.contains((table.concat(t.lines, " "):gsub("%s+", " ")), "(or source line) under the cursor",
    "<CR>'s description, to its end")
  all_shown(t)
  -- read as written: Markdown drew the citation marker "[n]" as a link "n"
  local rows, at = H.screen_row("previous [n]")
  H.ok(rows[at]:find("the cursor to the next", 1, true) or rows[at - 1]:find("the cursor to the next", 1, true),
    "the <Tab> line's [n] as written: " .. rows[at])
  H.screenshot("snacks-answer-keys")
  for _, line in ipairs(t.lines) do
    H.ok(line == "ragls answer keys:" or line:find("^%S") or line:find("^               %S"),
      "a key or a description's rest at the descriptions' column: " .. vim.inspect(line))
  end
  H.close_floats()
end)

H.it(":RagCommit's notice of git's summary: its '[branch hash]' as git wrote it, not a Markdown link", function()
  dismiss()
  require("ragls.rpc").notify("ragls: [main 1a2b3c4] Raise the frobnicator timeout", vim.log.levels.INFO)
  toast_with("Raise the frobnicator timeout", "snacks' toast of the commit")
  H.screen_row("[main 1a2b3c4] Raise")
  -- a notice quoting code in backticks stays Markdown: the backticks drawn as a code span
  require("ragls.rpc").notify("ragls: `r` asks it again", vim.log.levels.INFO)
  toast_with("asks it again", "snacks' toast quoting code")
  H.screen_row(function(r) return r:find("ragls: r asks it again", 1, true) ~= nil end)
end)

H.it("the server killed: snacks' toast shows the crash notice whole, with what to do", function()
  dismiss()
  local pid
  for _, child in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local f = io.open(("/proc/%d/cmdline"):format(child), "rb")
    -- (an argument "serve": the screenshot TUI's `nvim --server …`, from an earlier test, may still be there)
    if f and ("\0" .. f:read("*a")):find("\0serve\0", 1, true) then
      pid = child
    end
    if f then
      f:close()
    end
  end
  H.ok(pid, "found the server process")
  -- (no request in flight: one the crash fails says it stopped in its own place, and ragls then adds no notice)
  H.wait_for(function()
    return vim.iter(vim.lsp.get_clients({ name = "ragls" })):all(function(c) return next(c.requests) == nil end)
  end, 20000, "no ragls request in flight")
  vim.uv.kill(pid, "sigkill")
  local t = toast_with("server stopped", "snacks' toast of the crash")
  local text = table.concat(t.lines, " ")
  H.contains(text, "killed by signal 9", "says how")
  H.contains(text, ":Rag* command", "says what to do")
  all_shown(t)
  H.screenshot("snacks-crash-notice")
end)

H.it("indexing progress in snacks' toast: one line within it, the percentage kept", function()
  dismiss()
  local progress = require("ragls.progress")
  progress.first_done = false -- (the first index's end came before this test: a first index again)
  -- the server's step-2 report, as its $/progress sends it
  progress.on_progress({ token = "notifier-spec", value = { kind = "begin", title = "ragls: indexing",
    message = "for meaning search in long sections 78/288, step 2 of 3", percentage = 30 } })
  local t = toast_with("(30%)", "the progress toast with its percentage")
  H.eq(1, #t.lines, "one line: " .. vim.inspect(t.lines))
  H.contains(t.lines[1], "ragls: indexing for meaning search", "what it does")
  all_shown(t)
  progress.on_progress({ token = "notifier-spec", value = { kind = "end", message = "done" } })
end)

H.finish()
