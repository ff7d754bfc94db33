---@mod ragls.picker :RagQuery as a live picker.
---
--- With telescope.nvim or snacks.nvim installed the picker re-queries `rag/query` as you type (debounced) and
--- previews the chunk's file at its lines; fzf-lua re-queries as you type too (`fzf_live`, same preview);
--- otherwise |vim.ui.select| lists the results of one query (a UI plugin such as dressing or snacks.input makes
--- that a picker too). Entries show the chunk's relevance (64%), `path:first-last` and its heading once. Choosing an entry
--- opens the file at the chunk (or its `focusRange`) with a transient highlight (|ragls.jump.jump_to_source|);
--- `<C-q>` in telescope/snacks, `ctrl-q` in fzf-lua, or the last entry of the |vim.ui.select| list, sends all
--- results to quickfix. Each picker plugin has its module: |ragls.picker_telescope|, |ragls.picker_snacks|,
--- |ragls.picker_fzf|; this one has what they share (the query, an entry's text, opening a chunk).

local config = require("ragls.config")
local rpc = require("ragls.rpc")
local server = require("ragls.server")
local jump = require("ragls.jump")
local ui = require("ragls.ui")
local where_note = require("ragls.answer_text").where_note

--- The knowledge base(s) of the picker in use (`rag=NAME` on :RagQuery, else |:RagUse|'s choice).
local picker_rag = nil

--- `rag/query` params for `text` in the current picker.
local function query_params(text)
  return { query = text, topK = config.values.search_top_k, rag = require("ragls.rags").param(picker_rag) }
end

local M = {}

M.DEBOUNCE_MS = 200

--- The one entry of a live picker opened while its server starts (|:RagQuery| right after opening Neovim): the
--- picker opens at once saying so, and is filled once the server answers.
M.STARTING = "… starting the ragls server: results appear when it answers"

--- The one entry of such a picker once its server is up, while the first search runs (the first search of a
--- server that has just started waits for its workspace to open and its embedding model to load: seconds, during
--- which the picker said the server was still starting).
M.FIRST_SEARCH = "… the server is up: searching (its first search waits for the index to open)"

--- The text the open picker's first search (after its server started) runs for, until it answers; nil otherwise.
local first_search = nil

--- What the open picker says instead of results while it has no server to ask: M.STARTING while the server
--- starts, why it did not start when it failed; nil once a server answers (|M.pick|).
local waiting_notice = nil

--- `{ query, chunks }`: the results the open picker's next finder call lists for `query` without asking the server
--- again (fetched with a request that does not block the editor once the server started, |M.pick|).
local prefetched = nil

--- A picker entry that is a notice, not a result (`ragls_notice`): shown as its text, previewed as it, never opened
--- and never sent to quickfix.
---@param text string
---@return table
function M.notice(text)
  return { ragls_notice = text }
end

--- `chunks` without notices.
---@param chunks table[]
---@return table[]
local function results(chunks)
  return vim.tbl_filter(function(c) return not c.ragls_notice end, chunks or {})
end

--- " 64%  path:first-last  Heading" for a rag/query chunk (" (page 3, extracted text)" after the lines when they
--- count a converted document's extracted text, answer_text.where_note): the percentage (a column of 4, first, so a picker
--- narrower than a long heading never cuts it) is its `relevance` (its score's share of the best hit's), left out
--- when the server sent none ("<1%" for a share under 0.5 %); the raw `score` is never shown (its scale depends on
--- the fusion and the reranker).
---@param chunk table PROTOCOL Chunk
---@return string
function M.format(chunk)
  local s = chunk.source
  local text = ui.source_location(s) .. where_note(s)
  if s.title and s.title ~= "" then
    text = text .. "  " .. s.title
  end
  if type(chunk.relevance) == "number" then
    local pct = math.floor(chunk.relevance * 100 + 0.5)
    -- a share under 0.5 % is not nothing: "<1%" (the server leaves out the hits no signal found, share 0)
    local label = (pct == 0 and chunk.relevance > 0) and "<1%" or (pct .. "%")
    text = ("%4s  %s"):format(label, text)
  end
  return text
end


--- The chunk's lines without its heading line (already shown in the entry), for previews.
---@param chunk table
---@return string[]
function M.preview_lines(chunk)
  return ui.body_lines(chunk.text, chunk.source.title)
end

--- Send `rag/query` and call `cb(chunks, result)` (not called on error; the error is notified).
---@param text string
---@param cb fun(chunks: table[], result: table)
---@param opts? { on_error?: fun(err: table) }
function M.query(text, cb, opts)
  rpc.request("rag/query", query_params(text), function(result)
    cb(result.chunks or {}, result)
  end, opts)
end

--- How long a synchronous finder's query may block the editor (ms).
M.SYNC_TIMEOUT_MS = 5000

--- Blocking query for pickers whose finders are synchronous (telescope's and snacks' finders). Empty for an empty
--- text; else the results, or one notice entry (|M.notice|) saying why there are none: the server is starting (or
--- did not start), nothing matched (`M.nothing_found`), the search failed, or it took longer than
--- SYNC_TIMEOUT_MS.
---@param text string
---@return table[] chunks
function M.query_sync(text)
  if prefetched and prefetched.query == vim.trim(text or "") then
    local chunks = prefetched.chunks
    prefetched = nil
    return #chunks > 0 and chunks or { M.notice(M.nothing_found(text)) }
  end
  if first_search and first_search == vim.trim(text or "") then
    return { M.notice(M.FIRST_SEARCH) }
  end
  local client = server.find_client(require("ragls.root").for_buffer(0)) or server.find_client(nil)
  if not client or not client.initialized then
    return waiting_notice and { M.notice(waiting_notice) } or {}
  end
  if vim.trim(text or "") == "" then
    return {}
  end
  local resp
  if vim.fn.has("nvim-0.11") == 1 then
    resp = client:request_sync("rag/query", query_params(text), M.SYNC_TIMEOUT_MS, 0)
  else
    resp = client.request_sync("rag/query", query_params(text), M.SYNC_TIMEOUT_MS, 0)
  end
  if not resp then -- request_sync's timeout: the picker said nothing at all
    return { M.notice(("… no results within %d s: the server is busy; type on to search again"):format(
      M.SYNC_TIMEOUT_MS / 1000)) }
  elseif resp.err then
    return { M.notice(rpc.error_text("rag/query", resp.err)) }
  end
  local chunks = resp.result and resp.result.chunks or {}
  return #chunks > 0 and chunks or { M.notice(M.nothing_found(text)) }
end

--- What a live picker lists for a search that found nothing, as VS Code's Search Docs title says it: while the
--- server indexes, that the index is still being built (the file may not be in it yet).
---@param text string
---@return string
function M.nothing_found(text)
  if require("ragls.progress").indexing() then
    return ("nothing found for “%s” yet: the index is still being built"):format(vim.trim(text))
  end
  return ("no docs match “%s”"):format(vim.trim(text))
end

--- The window commands of a picker's "open in a split / vertical split / tab" keys (telescope's <C-x>/<C-v>/<C-t>,
--- snacks' <C-s>/<C-v>/<C-t>, fzf-lua's ctrl-s/ctrl-v/ctrl-t).
local SPLIT_COMMANDS = { split = "split", vsplit = "vsplit", tab = "tab split" }

--- Open a chunk chosen in a picker: jump with the transient highlight (|ragls.jump.jump_to_source|: a source of
--- extracted text opens in the buffer of that text, not the raw HTML, PDF or DOCX file). `how` opens it in a new
--- window first: "split", "vsplit" or "tab" (the new window is closed again when the source cannot be opened); nil:
--- in the current window.
---@param chunk table PROTOCOL Chunk
---@param how? "split"|"vsplit"|"tab"
function M.open(chunk, how)
  ui.leave_float() -- (the picker was opened from the answer float: never into it)
  local cmd = how and SPLIT_COMMANDS[how]
  if not (cmd and (chunk.source.bufnr or ui.source_fname(chunk.source))) then -- (a URL opens in the browser)
    jump.jump_to_source(chunk.source)
    return
  end
  vim.cmd(cmd)
  local win = vim.api.nvim_get_current_win()
  if not jump.jump_to_source(chunk.source) and vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, false)
  end
end

--- Put chunks into the quickfix list and open it (the |:RagQuery!| behaviour).
---@param text string
---@param chunks table[]
function M.to_quickfix(text, chunks)
  ui.show_query(text, { chunks = results(chunks) })
end

--- Which picker to use: `config.picker` when it is installed, else the first installed of telescope, snacks,
--- fzf-lua; else "select".
---@return "telescope"|"snacks"|"fzf-lua"|"select"
function M.backend()
  local want = config.values.picker
  local function has(mod)
    return pcall(require, mod)
  end
  local available = {
    telescope = function() return has("telescope.pickers") end,
    snacks = function() return has("snacks") and type(require("snacks").picker) == "table" end,
    ["fzf-lua"] = function() return has("fzf-lua") end,
  }
  if want and want ~= "auto" then
    if want == "select" or (available[want] and available[want]()) then
      return want
    end
  end
  for _, name in ipairs({ "telescope", "snacks", "fzf-lua" }) do
    if available[name]() then
      return name
    end
  end
  return "select"
end

--- vim.ui.select over the results of one query; the last entry sends them all to quickfix.
---@param text string
function M.select(text)
  M.query(text, function(chunks, result)
    if #chunks == 0 then
      rpc.notify(("ragls: nothing found for %q"):format(text), vim.log.levels.WARN)
      return
    end
    local items = vim.list_extend({}, chunks)
    table.insert(items, { quickfix = true })
    local prompt = ("RagQuery: %s%s"):format(text, result.abstained and " (weak matches)" or "")
    vim.ui.select(items, {
      prompt = prompt,
      kind = "ragls.query",
      format_item = function(item)
        return item.quickfix and ("→ all %d results to the quickfix list"):format(#chunks) or M.format(item)
      end,
    }, function(item)
      if not item then
        return
      end
      if item.quickfix then
        M.to_quickfix(text, chunks)
      else
        M.open(item)
      end
    end)
  end)
end


--- :RagQuery [text]: the live picker (or vim.ui.select with one query). Without text, telescope/snacks/fzf-lua
--- open with an empty prompt; vim.ui.select asks for the text first. While the server starts (the first
--- :RagQuery after opening Neovim) the picker opens at once: telescope and snacks list one entry saying so
--- (|M.STARTING|, or why the server did not start) and fill in the results once it answers; fzf-lua's window title
--- says so (then that its first search runs: the handle's `server_up`) until its results stream in.
---@param text? string
function M.pick(text, rag)
  text = vim.trim(text or "")
  picker_rag = rag
  local backend = M.backend()
  local module = ({ telescope = "ragls.picker_telescope", snacks = "ragls.picker_snacks",
    ["fzf-lua"] = "ragls.picker_fzf" })[backend]
  if module then
    local opened, handle = false, nil
    local function open(starting)
      opened = true
      local ok, ret = pcall(function() return require(module).pick(text, starting) end)
      if not ok then
        rpc.notify(("ragls: the %s picker failed (%s); using vim.ui.select"):format(backend, ret),
          vim.log.levels.WARN)
        if text ~= "" then
          M.select(text)
        end
        return
      end
      handle = ret
    end
    -- The synchronous finders need an initialized client: while it starts they list `waiting_notice`.
    server.with_client(function()
      waiting_notice = nil
      if not opened then
        open(false)
        return
      end
      -- Opened while the server started: its results, fetched without blocking the editor (the first query of a
      -- server that has just started waits for its workspace to open: longer than the finder's sync timeout).
      if handle and handle.server_up then -- fzf-lua: its title says the first search runs
        handle.server_up()
      end
      local prompt = handle and handle.prompt and handle.prompt()
      if not prompt then
        return
      elseif vim.trim(prompt) == "" then
        return handle.refresh() -- nothing to search: the notice goes
      end
      first_search = vim.trim(prompt)
      handle.refresh() -- the notice: the server is up, the search runs
      M.query(first_search, function(chunks)
        prefetched, first_search = { query = vim.trim(prompt), chunks = chunks }, nil
        handle.refresh()
      end, { on_error = function()
        first_search = nil
        handle.refresh()
      end })
    end, {
      on_wait = function()
        waiting_notice = M.STARTING
        open(true)
      end,
      on_fail = function(msg) -- the server did not start: the open picker says why
        if not (opened and handle) then
          return false
        end
        waiting_notice = msg
        handle.refresh()
        return true
      end,
    })
    return
  end
  if text ~= "" then
    M.select(text)
    return
  end
  ui.input({ prompt = "RagQuery: " }, M.select)
end

return M
