---@mod ragls Ask your workspace documents from Neovim (client for the ragls language server).
---
--- Usage (lazy.nvim or plain 'packpath'):
--- >lua
---   require("ragls").setup({
---     cmd = { "ragls", "serve" },
---     settings = { generation = { backend = "none" } },
---     keymaps = true,
---   })
--- <
--- `setup` only stores the configuration; the client starts when a file buffer is opened (`autostart`) or on the
--- first :Rag* command. The wire contract is docs/protocol.md in the ragls repository.

local config = require("ragls.config")
local rpc = require("ragls.rpc")
local server = require("ragls.server")
local answer_float = require("ragls.answer_float")
local ui = require("ragls.ui")
local counted = require("ragls.text").counted

local M = {}

--- Store the configuration. Invalid options are reported with |vim.notify| and the previous ones kept.
---@param opts? ragls.Config see |ragls-config|
---@return boolean ok
function M.setup(opts)
  local ok, err = config.set(opts)
  if not ok then
    rpc.notify(err, vim.log.levels.ERROR)
  end
  return ok
end

--- Attach the ragls client to a buffer if it is a file buffer that matches `filetypes` and lies inside a project
--- (|ragls.root|: a `root_markers` directory, a |:RagIndex| folder or the cwd). A buffer outside every project stays
--- detached (`b:ragls_detached` holds the reason) and nothing is indexed. Before a large first index the user is
--- asked once. Used by the autocmd in plugin/ragls.lua when `autostart` is on.
---@param bufnr integer
---@return string|nil root  the root the buffer attaches to (once allowed), nil when it stays detached
function M.attach(bufnr)
  if not config.values.autostart or not vim.api.nvim_buf_is_valid(bufnr) then
    return nil
  end
  if vim.bo[bufnr].buftype ~= "" or vim.api.nvim_buf_get_name(bufnr) == "" then
    return nil
  end
  local fts = config.values.filetypes
  if fts and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return nil
  end
  -- Git's own files (COMMIT_EDITMSG, a rebase todo) are not documents: no server starts for `git commit`'s editor.
  -- :RagCommit still starts one when asked.
  local name = vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr))
  if name:find("/.git/", 1, true) or vim.tbl_contains({ "gitcommit", "gitrebase" }, vim.bo[bufnr].filetype) then
    vim.b[bufnr].ragls_detached = "a git file, not a document"
    return nil
  end
  local rootmod = require("ragls.root")
  local root, why = rootmod.for_buffer(bufnr)
  if not root then
    vim.b[bufnr].ragls_detached = why
    return nil
  end
  vim.b[bufnr].ragls_detached = nil
  rootmod.gate(root, function()
    if vim.api.nvim_buf_is_valid(bufnr) then
      server.start(bufnr, root)
    end
  end)
  return root
end

--- Index a folder on explicit request (|:RagIndex|), even outside any project: buffers below it attach and no
--- question is asked. The home directory or `/` is refused by the server unless it holds a ragls.toml.
---@param dir? string default: the current file's directory, else the cwd
---@return string|nil dir
function M.index_folder(dir)
  local rootmod = require("ragls.root")
  dir = (dir and dir ~= "") and vim.fn.fnamemodify(vim.fn.expand(dir), ":p") or rootmod.default_folder()
  if vim.fn.isdirectory(dir) ~= 1 then
    rpc.notify(("ragls: %s is not a folder"):format(dir), vim.log.levels.ERROR)
    return nil
  end
  local ok, err = server.check_cmd()
  if not ok then
    vim.notify_once(err, vim.log.levels.ERROR, { title = "ragls" })
    return nil
  end
  dir = rootmod.add_explicit(dir)
  local attached = false
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and rootmod.for_buffer(buf) == dir and M.attach(buf) then
      attached = true
    end
  end
  if not attached then
    server.start(nil, dir)
  end
  rpc.notify(("ragls: starting the index of %s"):format(vim.fn.fnamemodify(dir, ":~")))
  return dir
end

--- Statusline component for lualine & co.: indexing progress, "ragls" when attached, "ragls: off" for a buffer
--- outside any project, "" otherwise. Example: `lualine_x = { require("ragls").statusline }`.
---@return string
function M.statusline()
  return require("ragls.progress").statusline()
end

--- The <Plug> mappings (always defined; see |ragls-mappings|) and their modes.
M.plug = {
  ask = { modes = { "n", "x" }, lhs = "<Plug>(ragls-ask)" },
  query = { modes = { "n" }, lhs = "<Plug>(ragls-query)" },
  status = { modes = { "n" }, lhs = "<Plug>(ragls-status)" },
  commit = { modes = { "n" }, lhs = "<Plug>(ragls-commit)" },
  last = { modes = { "n" }, lhs = "<Plug>(ragls-last)" },
}

--- Set the buffer-local keymaps from `keymaps` (called on |LspAttach| of the ragls client); each maps to its
--- <Plug> mapping.
---@param bufnr integer
function M.on_attach(bufnr)
  local maps = config.keymaps()
  for name, lhs in pairs(maps) do
    local plug = M.plug[name]
    if plug then
      vim.keymap.set(plug.modes, lhs, plug.lhs, { buffer = bufnr, remap = true, desc = "ragls: " .. name })
    end
  end
end

--- Extension for the temporary file holding a selection (keeps the loader's file-type detection).
local function selection_ext(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local ext = name:match("%.([%w_]+)$")
  return ext or "txt"
end

--- Write lines `line1..line2` of `bufnr` to a temporary file and return the `documents` entry for it (an absolute
--- path, which docs/protocol.md's `documents` accepts) plus a cleanup function. `documents` takes paths, globs, URLs, `%%`
--- and commands, not raw text, so the selection travels as a file in Neovim's private temp dir (outside the
--- workspace, so the server's watcher never indexes it).
---@param bufnr integer
---@param line1 integer 1-based
---@param line2 integer 1-based, inclusive
---@return string path
---@return fun() cleanup
function M.selection_document(bufnr, line1, line2)
  local lines = vim.api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false)
  local path = ("%s-selection.%s"):format(vim.fn.tempname(), selection_ext(bufnr))
  vim.fn.writefile(lines, path)
  return path, function()
    os.remove(path)
  end
end

--- Most characters of a selection put into the question (as VS Code does).
M.MAX_SELECTION_CHARS = 4000

--- The question sent for a range: the user's question, then the selected text fenced with its place, so that
--- retrieval and an extractive answer (no LLM) are about the selection, not about the question's few words.
---@param question string
---@param bufnr integer
---@param line1 integer
---@param line2 integer
---@return string
function M.selection_question(question, bufnr, line1, line2)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false), "\n")
  if #text > M.MAX_SELECTION_CHARS then
    text = text:sub(1, M.MAX_SELECTION_CHARS) .. "\n…"
  end
  local where = M.selection_place(bufnr, line1, line2)
  local fence = text:find("```", 1, true) and "~~~~" or "```"
  return ("%s\n\nSelected text (%s):\n%s\n%s\n%s"):format(question, where, fence, text, fence)
end

--- Where a range is, for people and the model: "config.rst:31-33" (the path as |:ls| shows it), "[selection]:2-4"
--- for an unnamed buffer.
---@param bufnr integer
---@param line1 integer
---@param line2 integer
---@return string
function M.selection_place(bufnr, line1, line2)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return ("%s:%d-%d"):format(name ~= "" and vim.fn.fnamemodify(name, ":~:.") or "[selection]", line1, line2)
end

--- Point sources that come from the selection file back at the buffer lines they were taken from. A named
--- buffer's sources get its file's `uri` and relative `path`; an unnamed buffer's get `bufnr` (no `uri`) and the
--- path "[selection]", which |ragls.jump.jump_to_source| follows to that buffer.
---@param result table rag/ask result (modified in place)
---@param path string the selection file
---@param bufnr integer
---@param line1 integer first selected line, 1-based
function M.remap_selection_sources(result, path, bufnr, line1)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local real = vim.fs.normalize(vim.uv.fs_realpath(path) or path)
  for _, source in ipairs(result.sources or {}) do
    local fname = ui.source_fname(source)
    fname = fname and vim.fs.normalize(fname)
    if fname and (fname == real or fname == vim.fs.normalize(path)) then
      if name ~= "" then
        source.uri = vim.uri_from_fname(name)
        source.path = vim.fn.fnamemodify(name, ":~:.")
      else
        source.uri = nil -- the selection file is deleted once the answer is in
        source.bufnr = bufnr
        source.path = "[selection]"
      end
      source.range = {
        start = { line = source.range.start.line + line1 - 1, character = source.range.start.character },
        ["end"] = { line = source.range["end"].line + line1 - 1, character = source.range["end"].character },
      }
      source.focusRange = nil -- lines of the selection file, not of the buffer: the remapped range is used
    end
  end
end

--- The note under an answer asked while the index still missed documents.
M.PARTIAL_INDEX_NOTE = "The index is still being built: this answer may miss parts of your docs not indexed yet; ask again when it is done."

--- Does a rag/status result say the index misses documents: files queued, or chunks without vectors?
---@param status table PROTOCOL rag/status result
---@return boolean
function M.index_incomplete(status)
  for _, f in ipairs(status and status.folders or {}) do
    if (tonumber(f.pending) or 0) > 0 or (tonumber(f.pendingVectors) or 0) > 0 then
      return true
    end
  end
  return false
end

--- Ask a question; the answer streams into a float, then lists its sources (`<CR>` opens one, `q` closes).
--- With no question, prompts for one. `opts.range = { line1, line2 }` sends those lines of the current buffer
--- as an ephemeral document.
---@param question? string
---@param opts? { range?: integer[], bufnr?: integer, rag?: string[] }
function M.ask(question, opts)
  opts = opts or {}
  if not question or vim.trim(question) == "" then
    -- about a selection: the prompt names it, as the answer's heading will ("Ask about config.rst:31-33: ")
    local about = opts.range and M.selection_place(opts.bufnr or vim.api.nvim_get_current_buf(), opts.range[1],
      opts.range[2])
    ui.input({ prompt = about and ("Ask about %s: "):format(about) or "Ask ragls: " }, function(input)
      M.ask(input, opts)
    end)
    return
  end
  question = vim.trim(question)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  if not opts.range and package.loaded["ragls.chat"] and require("ragls.chat").is_chat_buf(bufnr) then
    return require("ragls.chat").ask(question) -- :RagAsk in the chat buffer: a follow-up in the thread
  end
  local cleanup = function() end
  local documents, selection
  local sent = question
  if opts.range then
    selection, cleanup = M.selection_document(bufnr, opts.range[1], opts.range[2])
    documents = { selection }
    sent = M.selection_question(question, bufnr, opts.range[1], opts.range[2])
  end
  local view
  local token = rpc.open_stream(function(delta)
    if view then
      view:append(delta)
    end
  end)
  local finished = false
  local function done()
    if not finished then
      finished = true
      rpc.close_stream(token)
      cleanup()
    end
  end
  --- The float: opened once the question is sent, or at once while the server starts (it says so meanwhile).
  local function open_view()
    if view then
      return view
    end
    -- A range's question is headed with its place, as VS Code's turn ("What does this mean? (config.rst:31-33)"):
    -- the float covers the selection, and the quickfix list and |:RagLast| name the question this way.
    view = answer_float.answer_view(opts.range
      and ("%s (%s)"):format(question, M.selection_place(bufnr, opts.range[1], opts.range[2])) or question)
    view.on_abort = done -- closed before the question was sent: it never is (on_sent)
    -- `r` in the float: close it (stopping the answer if it still streams) and ask again.
    view.on_retry = function()
      if vim.api.nvim_win_is_valid(view.win) then
        vim.api.nvim_win_close(view.win, true)
      end
      M.ask(question, vim.tbl_extend("force", opts, { bufnr = bufnr }))
    end
    return view
  end
  local indexing = require("ragls.progress").indexing()
  rpc.request("rag/ask", {
    question = sent,
    topK = config.values.top_k,
    rag = require("ragls.rags").param(opts.rag),
    documents = documents,
    partialResultToken = token,
  }, function(result, client)
    done()
    if selection then
      M.remap_selection_sources(result, selection, bufnr, opts.range[1])
    end
    local function finish(incomplete)
      if incomplete then
        result.ragls_note = M.PARTIAL_INDEX_NOTE
      end
      if view then
        view:finish(result)
      end
    end
    if not (indexing or require("ragls.progress").indexing()) then
      return finish(false)
    end
    -- An index pass runs, but one that leaves nothing out (the sentence pass after every chunk has its vector, a
    -- pass over unchanged files) gets no note: only files still queued or chunks without vectors (as VS Code).
    local sent_ok = rpc.client_request(client, "rag/status", vim.empty_dict(), function(err, status)
      finish(err ~= nil or M.index_incomplete(status))
    end, 0)
    if not sent_ok then
      finish(true)
    end
  end, {
    on_error = function(err)
      done()
      if view and vim.api.nvim_win_is_valid(view.win) then
        view:fail(rpc.error_text("rag/ask", err))
        return true -- the float says it: no notification besides
      end
    end,
    on_wait = open_view,
    on_fail = function(msg) -- the server did not start: the float (open while it started) says why
      done()
      if view and vim.api.nvim_win_is_valid(view.win) then
        view:fail(msg)
        return true
      end
    end,
    on_sent = function(client, request_id)
      if view and not view:valid() then -- closed while the server started: nobody waits for this answer
        rpc.cancel(client, request_id)
        return
      end
      open_view().on_abort = function()
        done()
        rpc.cancel(client, request_id)
      end
    end,
  })
end

--- Search without generating. `opts.quickfix` (|:RagQuery!|): results go to the quickfix list
--- (`path:line:col: title — first line`); otherwise the live picker opens (|ragls.picker|). `opts.rag`: named
--- RAGs (|:RagUse|), sent with the quickfix search.
---@param text? string
---@param opts? { quickfix?: boolean, rag?: string[] }
function M.query(text, opts)
  text = vim.trim(text or "")
  if not (opts and opts.quickfix) then
    require("ragls.picker").pick(text, (opts or {}).rag)
    return
  end
  if text == "" then
    rpc.notify("ragls: :RagQuery! needs a search text, e.g. :RagQuery! install on windows", vim.log.levels.WARN)
    return
  end
  local params = { query = text, topK = config.values.search_top_k, rag = require("ragls.rags").param((opts or {}).rag) }
  rpc.request("rag/query", params, function(result)
    ui.show_query(text, result)
  end)
end

--- Reopen the last answer (|:RagLast|).
function M.last()
  return answer_float.show_last()
end

--- Re-index every workspace folder of the server; progress shows through |ragls.progress| and |LspProgress|.
function M.rebuild()
  rpc.notify("ragls: rebuilding the index…")
  rpc.request("rag/rebuild", { workDoneToken = "ragls-rebuild-" .. vim.uv.hrtime() }, function(result)
    -- newer servers list the first 50 files left out and count the rest (`skippedMore`)
    local skipped = #(result.skipped or {}) + (type(result.skippedMore) == "number" and result.skippedMore or 0)
    rpc.notify(("ragls: indexed %s, %s, %d skipped (%.1f s)"):format(counted(result.files or 0, "file"),
      counted(result.chunks or 0, "section"), skipped, (result.elapsedMs or 0) / 1000))
  end)
end

--- Floating summary of `rag/status` (folders, skipped files, generation backend, errors).
function M.status()
  rpc.request("rag/status", vim.empty_dict(), function(result)
    ui.show_status(result)
  end)
end

--- Allow the current project's ragls.toml (|:RagTrust|): |vim.secure.read()| asks, and the running server applies
--- the whole file at once. Returns true when allowed.
---@return boolean
function M.trust()
  return require("ragls.trust").trust_root(rpc.root_dir(vim.api.nvim_get_current_buf()))
end

--- Git work tree of a buffer (a `gitcommit` buffer lives in `.git/`), else of the cwd.
---@param bufnr integer
---@return string|nil
local function git_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local inside = name:match("^(.*)/%.git/")
  if inside then
    return inside
  end
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    local root = vim.fs.root(bufnr, ".git")
    if root then
      return root
    end
  end
  return vim.fs.root(vim.fn.getcwd(), ".git")
end

--- The server's "nothing staged" error names the protocol parameter (`staged:false`); say how to get the same
--- from Neovim instead, keeping the rest of its message.
---@param err table JSON-RPC error
---@return string|nil text  nil for any other error
function M.commit_error_text(err)
  local message = err.message or ""
  local replaced, n = message:gsub("pass `?staged:%s*false`?", "run :RagCommit! to use all changes to tracked files")
  if n == 0 then
    return nil
  end
  return rpc.error_text("rag/commitMessage", vim.tbl_extend("force", err, { message = replaced }))
end

--- Generate a commit message from the staged diff (`opts.staged = false`: from every change to tracked files,
--- staged or not, like `git commit -a`). In a `gitcommit` buffer it is inserted above the comment lines;
--- elsewhere it opens in a scratch buffer.
---@param opts? { staged?: boolean }  default `{ staged = true }`
function M.commit(opts)
  local staged = not (opts and opts.staged == false)
  local bufnr = vim.api.nvim_get_current_buf()
  local root = git_root(bufnr)
  local params = { staged = staged, style = config.values.commit_style }
  if root then
    params.repository = vim.uri_from_fname(root)
  end
  rpc.notify("ragls: writing a commit message…")
  rpc.request("rag/commitMessage", params, function(result)
    -- done: "writing a commit message…" off the cmdline (Neovim's own vim.notify left it there for good)
    vim.api.nvim_echo({ { "" } }, false, {})
    if vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].filetype == "gitcommit" and vim.bo[bufnr].modifiable then
      ui.insert_commit_message(bufnr, result.message)
    else
      ui.show_commit_scratch(result.message, { root = root, all = not staged })
    end
    if result.truncated then
      rpc.notify(("ragls: the %s diff was truncated for the message; check it covers everything")
        :format(staged and "staged" or "working-tree"), vim.log.levels.WARN)
    end
  end, { error_text = M.commit_error_text })
end

return M
