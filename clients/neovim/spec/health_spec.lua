-- :checkhealth ragls with the real server running on the fixture workspace.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

-- No [embedding] section: the default model (BAAI/bge-small-en-v1.5) is not cached and cannot be downloaded here, so
-- the server builds the index with its bundled all-MiniLM-L6-v2, as a user's first offline run does.
local toml = vim.fs.joinpath(H.workspace, "ragls.toml")
local kept, skip = {}, false
for _, line in ipairs(vim.fn.readfile(toml)) do
  if line:match("^%[") then
    skip = line == "[embedding]"
  end
  if not skip then
    table.insert(kept, line)
  end
end
vim.fn.writefile(kept, toml)
-- the edit revoked the folder's trust: trust it again as the user would (`ragls trust`)
H.trust_workspace()

H.load_plugin_for_workspace()
local messages = {} -- the server's indexing progress messages, from its start
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(args)
    table.insert(messages, args.data.params.value.message or "")
  end,
})
local client = H.open_and_wait_indexed("README.md", 3)

H.it("while the embedding model loads, the statusline, :RagStatus and :checkhealth say so", function()
  local progress, status_view = require("ragls.progress"), require("ragls.status_view")
  -- The server said so in its indexing progress at start-up: the statusline shows that message.
  H.ok(vim.tbl_contains(messages, progress.EMBEDDING_LOADING), "the server's message: " .. vim.inspect(messages))
  progress.on_progress({ token = "t-model", value = { kind = "begin", title = "ragls: indexing",
    message = progress.EMBEDDING_LOADING } })
  H.eq("ragls: loading the embedding model (keyword search meanwhile)", require("ragls").statusline(), "statusline")
  -- rag/status as the server sends it while its model loads: every chunk without vectors, embeddingLoading, and
  -- what is really left to embed; the real status of the loaded server with those fields as they are then.
  local function as_loading(status, left)
    for _, f in ipairs(status.folders) do
      H.eq(false, f.embeddingLoading, "the model is loaded by now")
      f.embeddingLoading, f.pendingVectors, f.storedPendingVectors = true, f.chunks, left
    end
    return status
  end
  local status = as_loading(H.request_sync(client, "rag/status", vim.empty_dict()).result, 2)
  local text = table.concat(status_view.status_lines(status), "\n")
  H.contains(text, "  embedding  model loading: keyword search meanwhile; 2 sections left to embed")
  H.ok(not text:find(" of %d+ sections left"), "not 'N of N sections left': " .. text)
  status.folders[1].storedPendingVectors = vim.NIL -- not recorded
  H.eq("model loading: keyword search meanwhile", status_view.vectors_phrase(status.folders[1]))
  H.eq("3 of 9 sections left (keyword search meanwhile)",
    status_view.vectors_phrase({ pendingVectors = 3, chunks = 9, embeddingLoading = false }))
  H.eq(nil, status_view.vectors_phrase({ pendingVectors = 0, chunks = 9, embeddingLoading = false }))
  -- :checkhealth reads the server's answer through the client: the same answer, marked as while loading.
  local request_sync = client.request_sync
  client.request_sync = function(self, method, ...)
    local resp = request_sync(self, method, ...)
    if method == "rag/status" and resp and resp.result then
      as_loading(resp.result, 0)
    end
    return resp
  end
  local ok, err = pcall(vim.cmd, "checkhealth ragls")
  client.request_sync = request_sync
  assert(ok, err)
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(health, ": embedding model loading: keyword search meanwhile; every section is embedded")
  vim.cmd("bwipeout")
  progress.on_progress({ token = "t-model", value = { kind = "end" } })
  H.eq("ragls", require("ragls").statusline(), "statusline once loaded")
end)

H.it(":RagStatus says what is still embedded once every section has its first vector (pendingWindows)", function()
  -- session 67: "indexed 3 min ago" alone while the long sections' later windows and the sentence pass still ran.
  -- The real status of this server, with the counts it sends while step 2 runs: every first vector in, 2 of the
  -- folder's sections with windows left.
  local status_view = require("ragls.status_view")
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  local folder = status.folders[1]
  H.eq("number", type(folder.pendingWindows), "the writer tracks windows: " .. vim.inspect(folder.pendingWindows))
  folder.pendingVectors, folder.pendingWindows = 0, 2
  local text = table.concat(status_view.status_lines(status), "\n")
  H.contains(text, ("  embedding  later parts of 2 of %d sections left (meaning search sees their start meanwhile)")
    :format(folder.chunks))
  folder.pendingWindows = vim.NIL -- unknown (a read-only process before anything was recorded): nothing said
  H.eq(nil, status_view.vectors_phrase(folder))
  folder.pendingWindows = 0
  H.eq(nil, status_view.vectors_phrase(folder))
end)

H.it("a long progress line is cut at its end in the statusline, so what it leads with stays", function()
  local progress = require("ragls.progress")
  local notice = "using the bundled offline embedding model sentence-transformers/all-MiniLM-L6-v2 (ragls's default, "
    .. "BAAI/bge-small-en-v1.5, is not downloaded and cannot be downloaded now). Nothing to do: indexing, search and "
    .. "answers work with it. Model files: ~/.cache/ragls/models/all-MiniLM-L6-v2-int8"
  progress.on_progress({ token = "t-long", value = { kind = "begin", title = "ragls: indexing", message = notice,
    percentage = 0 } })
  local line = require("ragls").statusline()
  H.ok(vim.fn.strdisplaywidth(line) <= progress.statusline_room(vim.api.nvim_win_get_width(0)),
    "cut to half the window: " .. line)
  H.ok(vim.startswith(line, "ragls: using the bundled offline embedding model") and vim.endswith(line, "… (0%)"), line)
  progress.on_progress({ token = "t-long", value = { kind = "end" } })
  -- As the server sends it while the model loads (lsp/server.py: "loading the embedding model: <its notice>"): the
  -- step alone, not a cut notice ("ragls: loading the embedding model: using the bundled offline embeddi…").
  progress.on_progress({ token = "t-long", value = { kind = "begin", title = "ragls: indexing",
    message = progress.EMBEDDING_LOADING .. ": " .. notice } })
  H.eq("ragls: loading the embedding model (keyword search meanwhile)", require("ragls").statusline(), "the step")
  progress.on_progress({ token = "t-long", value = { kind = "end" } })
end)

H.it("the statusline keeps an indexing step's percentage, and fits a split window", function()
  local progress = require("ragls.progress")
  local stl = "%f %=%{v:lua.require'ragls'.statusline()} %l:%c"
  progress.on_progress({ token = "t-pct", value = { kind = "begin", title = "ragls: indexing",
    message = "for meaning search in long sections 198/288, step 2 of 3", percentage = 45 } })
  -- The line was cut at its end, "ragls: indexing for meaning search in long sections 198/288, st…": the one figure
  -- that says how far it is showed in no window narrower than 156 columns.
  local width = vim.api.nvim_win_get_width(0)
  local line = vim.api.nvim_eval_statusline(stl, { winid = 0, maxwidth = width }).str
  H.ok(line:find("ragls: indexing for meaning search in long sections… (45%) ", 1, true), line)
  -- A split (:RagChat's): 64 columns of ragls went past the window, which cut the start: "<ng for …".
  vim.cmd("vsplit")
  width = vim.api.nvim_win_get_width(0)
  line = vim.api.nvim_eval_statusline(stl, { winid = 0, maxwidth = width }).str
  H.ok(width < 64 and line:find(" ragls: indexing 45% ", 1, true), ("in %d columns: %s"):format(width, line))
  vim.cmd("close")
  progress.on_progress({ token = "t-pct", value = { kind = "end" } })
end)

H.it(":RagStatus has a row for the indexing under way", function()
  local progress = require("ragls.progress")
  progress.on_progress({ token = "t-row", value = { kind = "begin", title = "ragls: indexing",
    message = "for faster answers 120/288 sections, step 3 of 3", percentage = 78 } })
  -- It said "indexed 3 min ago" alone while the statusline said "indexing 78%" (steps 2 and 3 run after the first
  -- pass, which sets that time, and rag/status does not count step 3).
  local lines = require("ragls.status_view").status_lines(H.request_sync(client, "rag/status", vim.empty_dict()).result)
  progress.on_progress({ token = "t-row", value = { kind = "end" } })
  H.ok(vim.tbl_contains(lines, "Progress   indexing for faster answers 120/288 sections, step 3 of 3 (78%)"),
    table.concat(lines, "\n"))
end)

H.it(":checkhealth ragls reports OK for Neovim, config, server and index, and names the fallback model", function()
  vim.cmd("checkhealth ragls")
  H.eq("checkhealth", vim.bo.filetype, "health buffer")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, "\n")
  H.contains(text, "OK Neovim 0.")
  H.contains(text, "OK setup() options are valid")
  H.contains(text, "OK server command found: " .. table.concat(H.server_cmd, " "))
  H.contains(text, "OK server version: ragls ")
  H.contains(text, "OK generation backend: none")
  -- the model the index is built with, named as the fallback it is, with what to do
  H.contains(text, "WARNING embedding model: sentence-transformers/all-MiniLM-L6-v2 (bundled fallback for "
    .. "BAAI/bge-small-en-v1.5)")
  H.contains(text, "set embedding.model_path")
  H.contains(text, ("OK %s: 3 files, "):format(vim.fs.normalize(vim.uv.fs_realpath(H.workspace))))
  for _, l in ipairs(lines) do
    H.ok(not l:find("ERROR", 1, true) and (not l:find("WARNING", 1, true) or l:find("fallback", 1, true)),
      "no other error or warning: " .. l)
  end
  vim.o.columns, vim.o.lines = 80, 24
  local row = vim.fn.search("bundled fallback")
  vim.cmd("normal! " .. row .. "Gzt")
  H.screenshot("checkhealth-fallback")
end)

H.it("the embedding model label: the fallback as rag/status reports it, else the model's name", function()
  local label = require("ragls.status_view").embedding_label
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  H.eq("offline-fallback", status.embeddingSource, "the server fell back")
  H.eq("sentence-transformers/all-MiniLM-L6-v2 (bundled fallback for BAAI/bge-small-en-v1.5)", label(status))
  H.eq("sentence-transformers/all-MiniLM-L6-v2", label(vim.tbl_extend("force", status, { embeddingSource = "path" })))
  H.eq("BAAI/bge-small-en-v1.5 (not loaded yet)", label({ embeddingModel = "BAAI/bge-small-en-v1.5" }))
end)

H.it(":RagStatus names the fallback too", function()
  H.notes = {}
  vim.cmd("RagStatus")
  local text = H.wait_for(function()
    for _, w in ipairs(H.floats()) do
      local t = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
      if t:find("fallback", 1, true) then
        return t
      end
    end
    local n = H.notes_matching("fallback")[1]
    return n and n.msg
  end, 20000, ":RagStatus naming the fallback")
  -- (the float's rows wrap at spaces, a value under its value: status_view.wrap_rows)
  H.contains(text:gsub("\n%s+", " "), "all-MiniLM-L6-v2 (bundled fallback for BAAI/bge-small-en-v1.5)")
  -- not the model configured: the row in the colour of warnings, as VS Code's status item warns of it
  local lit = {}
  for _, w in ipairs(H.floats()) do
    local buf = vim.api.nvim_win_get_buf(w)
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
      if m[4].line_hl_group == "DiagnosticWarn" then
        table.insert(lit, vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1])
      end
    end
  end
  H.ok(#lit > 0 and lit[1]:find("^Embedding  ") ~= nil, "the Embedding row lit as a warning: " .. vim.inspect(lit))
  -- The index path, wider than the float at 80 columns, wraps after one of its "/" under the value (text.wrap), every
  -- row within the float: the float's own wrapping cut it inside the folder's name ("…-a6fb07a343" / "f5").
  local win = H.floats()[1]
  local rows = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  local index_path = vim.fn.fnamemodify(
    H.request_sync(client, "rag/status", vim.empty_dict()).result.folders[1].indexPath, ":~")
  local at = nil
  for i, row in ipairs(rows) do
    H.ok(vim.fn.strdisplaywidth(row) <= vim.api.nvim_win_get_width(win), "a row within the float: " .. row)
    at = at or (row:find("^  index      ") and i)
  end
  local value_rows = { rows[at]:sub(14) }
  for i = at + 1, #rows do
    if not rows[i]:find("^             %S") then
      break
    end
    table.insert(value_rows, rows[i]:sub(14))
  end
  H.ok(#index_path > vim.api.nvim_win_get_width(win) - 13 and #value_rows > 1, "the path wraps: " .. vim.inspect(rows))
  H.eq(index_path, table.concat(value_rows), "the index path, whole across its rows")
  for i = 1, #value_rows - 1 do
    H.ok(value_rows[i]:sub(-1) == "/", "a row of the path ends at a '/': " .. vim.inspect(value_rows))
  end
  H.screenshot("ragstatus-fallback")
end)

H.it("screenshot: :RagStatus and the statusline while the embedding model loads", function()
  local progress, status_view = require("ragls.progress"), require("ragls.status_view")
  progress.on_progress({ token = "t-model", value = { kind = "begin", title = "ragls: indexing",
    message = progress.EMBEDDING_LOADING } })
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  for _, f in ipairs(status.folders) do
    f.embeddingLoading, f.pendingVectors, f.storedPendingVectors = true, f.chunks, 2
  end
  vim.o.columns, vim.o.lines = 110, 24
  vim.o.laststatus = 2
  vim.o.statusline = "%f %=%{v:lua.require'ragls'.statusline()} "
  for _, w in ipairs(H.floats()) do -- the :RagStatus float of the test before
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd("silent! tabonly")
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local _, win = status_view.show_status(status)
  local rows = vim.api.nvim_win_text_height(win, {}).all
  H.eq(rows, vim.api.nvim_win_get_height(win), "the float is as tall as its text: no empty rows")
  H.eq({ true, "shift:11" }, { vim.wo[win].breakindent, vim.wo[win].breakindentopt }, "wrapped values stay in their column")
  -- The model names read whole on screen: 'linebreak' wrapped the row after a "-" ("BAAI/bge-small-" / "en-v1.5").
  local screen, at = H.screen_row("│Embedding  ")
  local col = screen[at]:find("sentence-transformers", 1, true)
  H.ok(col and screen[at]:find("sentence-transformers/all-MiniLM-L6-v2 (bundled fallback", 1, true), screen[at])
  H.ok(screen[at + 1]:find("BAAI/bge-small-en-v1.5)", 1, true) == col, "the fallback's model whole, under the value: "
    .. screen[at] .. "\n" .. screen[at + 1])
  H.screenshot("ragstatus-model-loading")
  local function footer(w)
    local cfg = vim.api.nvim_win_get_config(w)
    return vim.iter(cfg.footer or {}):map(function(c) return c[1] end):join("")
  end
  H.eq(" q close ", footer(win), "all of it in view: only the key")
  vim.cmd("close")
  -- in a short editor the status is taller than its float: the border says how much is below, until scrolled there
  vim.o.lines = 12
  _, win = status_view.show_status(status)
  local below = require("ragls.ui").rows_below(win)
  H.ok(below > 0 and vim.startswith(footer(win), (" ↓ %d "):format(below)), "below the fold: " .. footer(win))
  H.ok(vim.endswith(footer(win), " q close "), footer(win))
  vim.api.nvim_win_call(win, function() vim.cmd("normal! G") end)
  vim.api.nvim_exec_autocmds("WinScrolled", { pattern = tostring(win) }) -- (no main loop in a headless `-l` script)
  H.eq(" q close ", footer(win), "scrolled to its end")
  vim.cmd("close")
  vim.o.lines = 24
  progress.on_progress({ token = "t-model", value = { kind = "end" } })
end)

H.finish()
