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
local ui = require("ragls.ui")

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

--- Attach the ragls client to a buffer if it is a file buffer that matches `filetypes` (used by the autocmd in
--- plugin/ragls.lua when `autostart` is on).
---@param bufnr integer
---@return integer|nil client_id
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
  return rpc.start(bufnr)
end

--- Set the buffer-local keymaps from `keymaps` (called on |LspAttach| of the ragls client).
---@param bufnr integer
function M.on_attach(bufnr)
  local maps = config.keymaps()
  local function map(mode, name, rhs)
    if maps[name] then
      vim.keymap.set(mode, maps[name], rhs, { buffer = bufnr, desc = "ragls: " .. name })
    end
  end
  map("n", "ask", "<cmd>RagAsk<CR>")
  map("x", "ask", ":RagAsk<CR>")
  map("n", "query", function()
    vim.ui.input({ prompt = "RagQuery: " }, function(text)
      if text and text ~= "" then
        M.query(text)
      end
    end)
  end)
  map("n", "status", "<cmd>RagStatus<CR>")
  map("n", "commit", "<cmd>RagCommit<CR>")
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

--- Point sources that come from the selection file back at the buffer lines they were taken from. A named
--- buffer's sources get its file's `uri` and relative `path`; an unnamed buffer's get `bufnr` (no `uri`) and the
--- path "[selection]", which |ragls.ui.jump_to_source| follows to that buffer.
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

--- Ask a question; the answer streams into a float, then lists its sources (`<CR>` opens one, `q` closes).
--- With no question, prompts for one. `opts.range = { line1, line2 }` sends those lines of the current buffer
--- as an ephemeral document.
---@param question? string
---@param opts? { range?: integer[], bufnr?: integer, rag?: string[] }
function M.ask(question, opts)
  opts = opts or {}
  if not question or vim.trim(question) == "" then
    vim.ui.input({ prompt = "Ask ragls: " }, function(input)
      if input and vim.trim(input) ~= "" then
        M.ask(input, opts)
      end
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
  if opts.range then
    selection, cleanup = M.selection_document(bufnr, opts.range[1], opts.range[2])
    documents = { selection }
  end
  local view
  local token = rpc.open_stream(function(delta)
    if view then
      view:append(delta)
    end
  end)
  local function done()
    rpc.close_stream(token)
    cleanup()
  end
  rpc.request("rag/ask", {
    question = question,
    topK = config.values.top_k,
    rag = require("ragls.rags").param(opts.rag),
    documents = documents,
    partialResultToken = token,
  }, function(result)
    done()
    if selection then
      M.remap_selection_sources(result, selection, bufnr, opts.range[1])
    end
    if view then
      view:finish(result)
    end
  end, {
    on_error = function(err)
      done()
      if view then
        view:fail(rpc.error_text("rag/ask", err))
      end
    end,
    on_sent = function(client, request_id)
      view = ui.answer_view(question)
      view.on_abort = function()
        done()
        rpc.cancel(client, request_id)
      end
    end,
  })
end

--- Search without generating: results go to the quickfix list (`path:line:col: title — first line`).
---@param text string
---@param opts? { rag?: string[] }
function M.query(text, opts)
  if not text or vim.trim(text) == "" then
    rpc.notify("ragls: :RagQuery needs a search text, e.g. :RagQuery install on windows", vim.log.levels.WARN)
    return
  end
  text = vim.trim(text)
  local params = { query = text, topK = config.values.top_k, rag = require("ragls.rags").param((opts or {}).rag) }
  rpc.request("rag/query", params, function(result)
    ui.show_query(text, result)
  end)
end

--- Re-index every workspace folder of the server; progress shows through |LspProgress|.
function M.rebuild()
  rpc.notify("ragls: rebuilding the index…")
  rpc.request("rag/rebuild", { workDoneToken = "ragls-rebuild-" .. vim.uv.hrtime() }, function(result)
    local skipped = result.skipped or {}
    rpc.notify(("ragls: indexed %d files, %d chunks, %d skipped (%.1f s)"):format(
      result.files or 0, result.chunks or 0, #skipped, (result.elapsedMs or 0) / 1000))
  end)
end

--- Floating summary of `rag/status` (folders, skipped files, generation backend, errors).
function M.status()
  rpc.request("rag/status", vim.empty_dict(), function(result)
    ui.show_status(result)
  end)
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
    if vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].filetype == "gitcommit" and vim.bo[bufnr].modifiable then
      ui.insert_commit_message(bufnr, result.message)
    else
      ui.show_commit_scratch(result.message)
    end
    if result.truncated then
      rpc.notify(("ragls: the %s diff was truncated for the message; check it covers everything")
        :format(staged and "staged" or "working-tree"), vim.log.levels.WARN)
    end
  end, { error_text = M.commit_error_text })
end

return M
