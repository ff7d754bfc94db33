---@mod ragls.picker :RagQuery as a live picker.
---
--- With telescope.nvim or snacks.nvim installed the picker re-queries `rag/query` as you type (debounced) and
--- previews the chunk's file at its lines; fzf-lua re-queries as you type too (`fzf_live`, same preview);
--- otherwise |vim.ui.select| lists the results of one query (a UI plugin such as dressing or snacks.input makes
--- that a picker too). Entries show the chunk's relevance (64%), `path:first-last` and its heading once. Choosing an entry
--- opens the file at the chunk (or its `focusRange`) with a transient highlight (|ragls.jump.jump_to_source|);
--- `<C-q>` in telescope/snacks, `ctrl-q` in fzf-lua, or the last entry of the |vim.ui.select| list, sends all
--- results to quickfix.

local config = require("ragls.config")
local rpc = require("ragls.rpc")
local server = require("ragls.server")
local jump = require("ragls.jump")
local ui = require("ragls.ui")

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

--- " 64%  path:first-last  Heading" for a rag/query chunk: the percentage (a column of 4, first, so a picker
--- narrower than a long heading never cuts it) is its `relevance` (its score's share of the best hit's), left out
--- when the server sent none ("<1%" for a share under 0.5 %); the raw `score` is never shown (its scale depends on
--- the fusion and the reranker).
---@param chunk table PROTOCOL Chunk
---@return string
function M.format(chunk)
  local s = chunk.source
  local text = ui.source_location(s)
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

--- telescope entry of a rag/query chunk: shown as `M.format`, at its cited lines' start: `lnum`, and `col` in
--- BYTES, 0-based, because telescope's `<C-v>`/`<C-x>`/`<C-t>` (actions.set.edit) hand it to |nvim_win_set_cursor()|
--- as it is (without a `col` they put the cursor on the line's second byte).
---@param chunk table PROTOCOL Chunk
---@return table
function M.telescope_entry(chunk)
  if chunk.ragls_notice then
    return { value = chunk, display = chunk.ragls_notice, ordinal = chunk.ragls_notice }
  end
  local fname = ui.source_fname(chunk.source)
  local lnum, col0 = jump.source_start(chunk.source, fname)
  return { value = chunk, display = M.format(chunk), ordinal = M.format(chunk), filename = fname, lnum = lnum,
    col = col0 }
end

--- snacks.nvim picker item `i` of a rag/query chunk: `pos` is {1-based line, 0-based BYTE column} of its cited
--- lines' start (what snacks' preview, jump and quickfix read), `end_pos` the end of their last line (snacks' preview
--- lights `pos` to `end_pos`: {last line, 0} left the last cited line unlit).
---@param i integer
---@param chunk table PROTOCOL Chunk
---@return table
function M.snacks_item(i, chunk)
  if chunk.ragls_notice then
    return { idx = i, text = chunk.ragls_notice, preview = { text = chunk.ragls_notice }, chunk = chunk }
  end
  local fname = ui.source_fname(chunk.source)
  local lnum, col0 = jump.source_start(chunk.source, fname)
  return { idx = i, score = chunk.score, text = M.format(chunk), file = fname, pos = { lnum, col0 },
    end_pos = { jump.source_end(chunk.source, fname) }, chunk = chunk, preview = "file" }
end

--- fzf-lua's `path:line:col:` of a rag/query chunk's cited lines (col 1-based BYTES, as grep prints it), for its
--- file previewer. nil for a source without a file.
---@param chunk table PROTOCOL Chunk
---@return string|nil
function M.fzf_location(chunk)
  local fname = ui.source_fname(chunk.source)
  if not fname then
    return nil
  end
  local lnum, col0 = jump.source_start(chunk.source, fname)
  return ("%s:%d:%d:"):format(fname, lnum, col0 + 1)
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

--- Open a chunk chosen in a picker: jump with the transient highlight and remember it for |:RagLast|.
---@param chunk table
function M.open(chunk)
  jump.jump_to_source(chunk.source)
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

--- telescope.nvim: dynamic finder (one rag/query per prompt change, debounced), buffer previewer at the lines.
---@param text string
---@return { prompt: fun(): string|nil, refresh: fun() } handle  the open picker's prompt (nil once closed) and a
---  refresh running its finder again (the picker was opened while its server started)
local function telescope(text)
  local pickers = require("telescope.pickers")
  local finders = require("telescope.finders")
  local previewers = require("telescope.previewers")
  local sorters = require("telescope.sorters")
  local actions = require("telescope.actions")
  local state = require("telescope.actions.state")
  local last, last_query = {}, nil
  local picker = pickers.new({}, {
    prompt_title = "RagQuery",
    default_text = text,
    debounce = M.DEBOUNCE_MS,
    finder = finders.new_dynamic({
      fn = function(prompt)
        last, last_query = M.query_sync(prompt), prompt
        return last
      end,
      entry_maker = M.telescope_entry,
    }),
    sorter = sorters.empty(),
    previewer = previewers.new_buffer_previewer({
      title = "ragls",
      -- shown instead of `title` with telescope's `dynamic_preview_title` (as its file previewers show the path)
      dyn_title = function(_, entry)
        return entry.value.source and ui.source_location(entry.value.source) or "ragls"
      end,
      define_preview = function(self, entry)
        local chunk = entry.value
        if chunk.ragls_notice then
          vim.api.nvim_buf_set_lines(self.state.bufnr, 0, -1, false, { chunk.ragls_notice })
          if self.state.winid and vim.api.nvim_win_is_valid(self.state.winid) then
            vim.wo[self.state.winid].wrap, vim.wo[self.state.winid].linebreak = true, true
          end
          return
        end
        local fname = ui.source_fname(chunk.source)
        local lines = fname and vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname) or M.preview_lines(chunk)
        vim.api.nvim_buf_set_lines(self.state.bufnr, 0, -1, false, lines)
        if fname then
          local bufnr, winid = self.state.bufnr, self.state.winid
          vim.bo[bufnr].filetype = vim.filetype.match({ filename = fname }) or ""
          local range = chunk.source.focusRange or chunk.source.range
          jump.highlight_range(bufnr, range, 0)
          -- telescope puts this buffer into the preview window in a vim.schedule after define_preview returns;
          -- the cursor is placed after that (a later schedule), else it lands in the old buffer and the new one
          -- shows from its top.
          vim.schedule(function()
            if vim.api.nvim_win_is_valid(winid) and vim.api.nvim_win_get_buf(winid) == bufnr then
              -- Prose wraps at words (telescope turns 'wrap' off in its previews): the cited lines of a docs page
              -- were cut at the preview's edge, half of each sentence unreadable (snacks' preview wraps).
              vim.wo[winid].wrap, vim.wo[winid].linebreak = true, true
              pcall(vim.api.nvim_win_set_cursor, winid, { range.start.line + 1, 0 })
              vim.api.nvim_win_call(winid, function()
                vim.cmd("normal! zz")
              end)
            end
          end)
        end
      end,
    }),
    attach_mappings = function(bufnr, map)
      actions.select_default:replace(function()
        local entry = state.get_selected_entry()
        if entry and entry.value.ragls_notice then
          return -- a notice ("starting the server"): nothing to open, the picker stays
        end
        actions.close(bufnr)
        if entry then
          M.open(entry.value)
        end
      end)
      map({ "i", "n" }, "<C-q>", function()
        local prompt = state.get_current_line()
        actions.close(bufnr)
        -- The results of the prompt as shown (the finder's last call may have been for another prompt).
        M.to_quickfix(prompt, prompt == last_query and last or M.query_sync(prompt))
      end)
      return true
    end,
  })
  picker:find()
  local function open()
    return picker.prompt_bufnr ~= nil and vim.api.nvim_buf_is_valid(picker.prompt_bufnr)
  end
  return {
    prompt = function()
      return open() and picker:_get_prompt() or nil
    end,
    refresh = function()
      if open() then
        picker:refresh()
      end
    end,
  }
end

--- snacks.nvim picker: live (re-queried as you type), file preview at the chunk.
---@param text string
---@return { prompt: fun(): string|nil, refresh: fun() } handle  as telescope's
local function snacks(text)
  local Snacks = require("snacks")
  local last, last_query = {}, text
  local picker = Snacks.picker.pick({
    title = "RagQuery",
    search = text,
    live = true,
    finder = function(_, ctx)
      local q = ctx.filter.search
      last, last_query = M.query_sync(q), q
      local items = {}
      for i, chunk in ipairs(last) do
        table.insert(items, M.snacks_item(i, chunk))
      end
      return items
    end,
    format = function(item)
      return { { item.text } }
    end,
    preview = "preview", -- each item says how: "file" for a result, its own text for a notice
    confirm = function(picker, item)
      if item and item.chunk.ragls_notice then
        return -- a notice ("starting the server"): nothing to open, the picker stays
      end
      picker:close()
      if item then
        M.open(item.chunk)
      end
    end,
    actions = {
      ragls_quickfix = function(picker)
        picker:close()
        M.to_quickfix(last_query, last)
      end,
    },
    win = { input = { keys = { ["<C-q>"] = { "ragls_quickfix", mode = { "i", "n" } } } } },
  })
  return {
    prompt = function()
      return picker and not picker.closed and picker:filter().search or nil
    end,
    refresh = function()
      if picker and not picker.closed then
        picker:refresh()
      end
    end,
  }
end

--- fzf-lua's builtin file previewer (|fzf-lua| `previewer.builtin.buffer_or_file`, the one its `files` and `grep`
--- pickers use) for ragls entries: an entry is looked up with `chunk_of(line)` instead of being parsed as
--- `path:line:col`, so the preview opens the chunk's file with the cursor on its first cited (focus) line and those
--- lines lit (|hl-RaglsSource|). nil when this fzf-lua has no such previewer (then there is no preview).
---@param chunk_of fun(entry: string): table|nil
---@return table|nil fzf-lua's `previewer` option
local function fzf_previewer(chunk_of)
  local ok, builtin = pcall(require, "fzf-lua.previewer.builtin")
  if not ok or type(builtin) ~= "table" or type(builtin.buffer_or_file) ~= "table" then
    return nil
  end
  local P = builtin.buffer_or_file:extend()
  function P:parse_entry(entry_str, cb)
    local chunk = chunk_of(require("fzf-lua.utils").strip_ansi_coloring(entry_str or ""))
    local fname = chunk and ui.source_fname(chunk.source)
    if not fname then
      return { content = { { { "ragls: no file to preview for this entry", "Comment" } } } }
    end
    -- fzf-lua's own parse of a "path:line:col:" entry (it stats the file, declines binary or huge ones)
    local entry = P.super.parse_entry(self, M.fzf_location(chunk), cb)
    if type(entry) == "table" then
      entry.ragls_range = chunk.source.focusRange or chunk.source.range
      -- titled path:lines, as telescope's preview (fzf-lua's own title of a loaded file is "buf 11: name.md")
      entry.title = (" %s "):format(ui.source_location(chunk.source))
    end
    return entry
  end
  function P:preview_buf_post(entry, min_winopts)
    P.super.preview_buf_post(self, entry, min_winopts)
    local buf = self.preview_bufnr
    -- a scratch buffer of the preview only: never a highlight left in one of the user's buffers
    if entry and entry.ragls_range and buf and vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].buflisted then
      jump.highlight_range(buf, entry.ragls_range, 0)
    end
  end
  -- fzf-lua instantiates `_ctor()(spec, opts)`: a fresh previewer per picker, like its own builtins
  return { _ctor = function() return P end }
end

--- fzf-lua: `fzf_live` re-queries as you type (fzf-lua's own debounce of its reload); each query's results are
--- streamed to fzf through the contents callback (`cb(line)` per entry, `cb()` at the end), and fzf-lua's builtin
--- previewer shows the chunk's file at its cited lines. Older fzf-lua without `fzf_live`: the results of one query
--- through `fzf_exec` (fzf filters them further). `ctrl-q` sends the results of the current query to quickfix.
--- `starting`: opened while the server starts; the window's title says so (|M.FZF_STARTING|) until the first
--- results (or the failure) come, and fzf's list streams in as each query's results arrive, so nothing else needs
--- refreshing. (Not fzf's --header: Debian's fzf 0.38 has no change-header, so the notice outlived the results.)
---@param text string
---@param starting? boolean
local function fzf(text, starting)
  local fzf_lua = require("fzf-lua")
  local by_line, last, last_query = {}, {}, text
  local previewer = fzf_previewer(function(line)
    return by_line[line]
  end)
  --- The starting notice goes with the first answer (results, an error or the server's failure to start).
  local function started()
    if not starting then
      return
    end
    starting = false
    local ok, win = pcall(function() return require("fzf-lua").win.__SELF() end)
    if ok and win and win.update_main_title then
      pcall(win.update_main_title, win, nil)
    end
  end
  local actions = {
    ["default"] = function(selected)
      local chunk = selected and by_line[selected[1]]
      if chunk then
        M.open(chunk)
      end
    end,
    ["ctrl-q"] = function()
      M.to_quickfix(last_query, last)
    end,
  }
  --- The contents of one query: a function fzf-lua calls with its callback.
  local function contents(q)
    return function(cb)
      if vim.trim(q or "") == "" then
        cb()
        return
      end
      M.query(q, function(chunks)
        started()
        by_line, last, last_query = {}, chunks, q
        for _, chunk in ipairs(chunks) do
          local line = M.format(chunk)
          by_line[line] = chunk
          cb(line)
        end
        if #chunks == 0 then
          cb(M.nothing_found(q)) -- (no chunk behind it: choosing it opens nothing)
        end
        cb()
      end, {
        on_error = function()
          started()
          cb()
        end,
        on_fail = function()
          started()
          cb()
        end,
      })
    end
  end
  -- Prose wraps at words in the preview (fzf-lua's default is nowrap: the cited sentences of a docs page were cut
  -- at the preview's edge; F3 still toggles it), as in telescope's and snacks' previews.
  local winopts = { preview = { wrap = true, winopts = { linebreak = true } } }
  if starting then
    winopts.title, winopts.title_pos = " " .. M.FZF_STARTING .. " ", "center"
  end
  if type(fzf_lua.fzf_live) == "function" then
    fzf_lua.fzf_live(function(args)
      -- fzf-lua passes the query as args[1] (older releases: the query string itself)
      return contents(type(args) == "table" and args[1] or args)
    end, { prompt = "RagQuery> ", query = text, exec_empty_query = false, actions = actions, previewer = previewer,
      winopts = winopts })
    return
  end
  local function show(q)
    fzf_lua.fzf_exec(contents(q), { prompt = "RagQuery> ", actions = actions, previewer = previewer,
      winopts = winopts })
  end
  if text ~= "" then
    show(text)
  else
    vim.ui.input({ prompt = "RagQuery: " }, function(input)
      if input and vim.trim(input) ~= "" then
        show(vim.trim(input))
      end
    end)
  end
end

--- fzf-lua's window title when it opens while the server starts, until the first results come.
M.FZF_STARTING = "ragls: starting the server… results appear when it answers"

--- :RagQuery [text]: the live picker (or vim.ui.select with one query). Without text, telescope/snacks/fzf-lua
--- open with an empty prompt; vim.ui.select asks for the text first. While the server starts (the first
--- :RagQuery after opening Neovim) the picker opens at once: telescope and snacks list one entry saying so
--- (|M.STARTING|, or why the server did not start) and fill in the results once it answers; fzf-lua's window title
--- says so until its results stream in.
---@param text? string
function M.pick(text, rag)
  text = vim.trim(text or "")
  picker_rag = rag
  local backend = M.backend()
  local run = ({ telescope = telescope, snacks = snacks, ["fzf-lua"] = fzf })[backend]
  if run then
    local opened, handle = false, nil
    local function open(starting)
      opened = true
      local ok, ret = pcall(run, text, starting)
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
      local prompt = handle and handle.prompt()
      if not prompt then
        return
      elseif vim.trim(prompt) == "" then
        return handle.refresh() -- nothing to search: the notice goes
      end
      M.query(vim.trim(prompt), function(chunks)
        prefetched = { query = vim.trim(prompt), chunks = chunks }
        handle.refresh()
      end, { on_error = function() handle.refresh() end })
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
  vim.ui.input({ prompt = "RagQuery: " }, function(input)
    if input and vim.trim(input) ~= "" then
      M.select(vim.trim(input))
    end
  end)
end

return M
