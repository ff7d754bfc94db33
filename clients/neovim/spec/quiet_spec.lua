-- Quiet with Neovim's own vim.notify (no notification plugin): the first index is shown on the cmdline (never in
-- :messages while it runs, never wider than the cmdline, so never a hit-enter prompt) and ends with one
-- "ragls: indexed" message; a later index (`:w` re-indexes the file) adds nothing to :messages and echoes nothing;
-- a ragls error is not overwritten by progress. Echoes are observed by wrapping nvim_echo (what vim.notify and the
-- plugin both call) and through the LspProgress event.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

vim.notify = H.real_notify -- what a user without a notification plugin has
local echoes = {}
local echo = vim.api.nvim_echo
vim.api.nvim_echo = function(chunks, history, opts)
  local text = table.concat(vim.tbl_map(function(c) return c[1] end, chunks), "")
  table.insert(echoes, { text = text, history = history, at = vim.uv.now() })
  return echo(chunks, history, opts)
end
local ends, reports = 0, 0
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local kind = ev.data and ev.data.params and ev.data.params.value.kind
    ends = ends + (kind == "end" and 1 or 0)
    reports = reports + (kind == "report" and 1 or 0)
  end,
})

local function ragls_echoes(from)
  return vim.tbl_filter(function(e) return e.text:find("ragls", 1, true) end, vim.list_slice(echoes, from))
end

local function messages()
  return vim.api.nvim_exec2("messages", { output = true }).output
end

H.load_plugin_for_workspace()
local progress = require("ragls.progress")
H.open_and_wait_indexed("README.md", 3)

H.it("the first index: progress echoed on one line and kept out of :messages; one 'indexed' at the end", function()
  H.ok(reports > 0 or ends > 0, "the server reported progress")
  local shown = ragls_echoes(1)
  H.ok(#shown > 0, "progress was shown: " .. vim.inspect(echoes))
  for _, e in ipairs(shown) do
    H.ok(vim.fn.strdisplaywidth(e.text) < vim.o.columns, "fits the cmdline: " .. e.text)
    H.ok(not e.text:find("\n", 1, true), "one line: " .. e.text)
  end
  local in_history = vim.tbl_filter(function(e) return e.history end, shown)
  H.eq(1, #in_history, "one message kept in :messages: " .. vim.inspect(in_history))
  H.contains(in_history[1].text, "ragls: indexed")
  H.eq(1, select(2, messages():gsub("ragls: indexed", "")), ":messages has it once")
end)

H.it("a long progress message is cut to the cmdline width (never a hit-enter prompt)", function()
  local long = "using the bundled offline embedding model sentence-transformers/all-MiniLM-L6-v2 (ragls's default, "
    .. "BAAI/bge-small-en-v1.5, is not downloaded and cannot be downloaded now). Nothing to do. Model files: "
    .. string.rep("a-long-folder/", 12) .. "all-MiniLM-L6-v2"
  local fitted = progress.fit("ragls: indexing " .. long)
  H.ok(vim.fn.strdisplaywidth(fitted) <= vim.v.echospace, "fits: " .. fitted)
  H.eq("…", vim.fn.strcharpart(fitted, vim.fn.strchars(fitted) - 1), "marked as cut")
  H.eq("ragls: short", progress.fit("ragls: short"), "a short text stays")
end)

H.it(":w re-indexes the file silently: nothing in :messages, nothing echoed", function()
  local before_ends, from = ends, #echoes + 1
  local before = messages()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "faq.md")))
  H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls", bufnr = 0 }) > 0 end, 10000, "attached")
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "", "Saved from the quiet spec: zanzibar." })
  vim.cmd("silent write")
  H.wait_for(function() return ends > before_ends end, 60000, "the re-index to end")
  H.eq(before, messages(), ":messages unchanged")
  H.eq({}, ragls_echoes(from), "nothing echoed")
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local hits = H.request_sync(client, "rag/query", { query = "zanzibar" }).result.chunks
  H.ok(#hits > 0 and hits[1].source.path == "faq.md", "the saved text is indexed: " .. vim.inspect(hits[1]))
end)

H.it("progress does not overwrite a ragls error on the cmdline", function()
  progress.first_done = false -- as during the first index
  require("ragls.rpc").notify("ragls: nothing staged", vim.log.levels.ERROR)
  local from = #echoes + 1
  progress.on_progress({ token = "t-quiet", value = { kind = "begin", title = "ragls: indexing", message = "1/2 files" } })
  progress.on_progress({ token = "t-quiet", value = { kind = "report", message = "2/2 files", percentage = 90 } })
  H.eq({}, ragls_echoes(from), "no progress echoed over the error")
  progress.last_error_at = nil
  progress.on_progress({ token = "t-quiet2", value = { kind = "begin", title = "ragls: indexing", message = "1/2 files" } })
  H.eq(1, #ragls_echoes(from), "without a recent error it is echoed")
  progress.reset()
end)

H.it("messages piling up while the screenshot UI is attached never wait on a hit-enter prompt", function()
  -- (a spec's vim.wait does not redraw; with a UI attached the third line asked for <Enter>, and `nvim -l`, reading
  -- it from a closed stdin, exited 0 in the middle of the spec: picker_spec's screenshot during the first index)
  H.with_ui(function()
    for i = 1, 3 do
      vim.schedule(function() echo({ { "ragls: a message that arrives during a screenshot " .. i } }, false, {}) end)
    end
    local done = false
    vim.schedule(function() done = true end)
    H.wait_for(function() return done end, 5000, "the messages")
    vim.cmd("redraw")
  end)
end)

H.finish()
