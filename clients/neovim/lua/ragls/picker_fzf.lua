---@mod ragls.picker_fzf :RagQuery in fzf-lua (|ragls.picker|): `fzf_live` re-querying as you type, its builtin
--- previewer at the cited lines.

local jump = require("ragls.jump")
local picker = require("ragls.picker")
local ui = require("ragls.ui")

local M = {}

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

--- fzf-lua's window title when it opens while the server starts, until the first results come.
M.FZF_STARTING = "ragls: starting the server… results appear when it answers"

--- The title once the server is up, while its first search runs (|ragls.picker.FIRST_SEARCH|: the first search of
--- a server that has just started waits for its index to open), until the results come.
M.FZF_FIRST_SEARCH = "ragls: the server is up, its first search runs…"

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
    -- a chunk of extracted text (a PDF, HTML or DOCX file) previews the buffer of that text, whose lines it counts
    local text_buf = type(entry) == "table" and require("ragls.extracted").source_buffer(chunk.source)
    if text_buf then
      local lnum, col0 = jump.source_start(vim.tbl_extend("force", chunk.source, { bufnr = text_buf }))
      entry.bufnr, entry.tick, entry.line, entry.col = text_buf, vim.b[text_buf].changedtick, lnum, col0 + 1
      entry.content, entry.cmd = nil, nil -- (what fzf-lua made of the file itself: a PDF is "binary")
    end
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
--- `starting`: opened while the server starts; the window's title says so (|M.FZF_STARTING|), then once the
--- server is up that its first search runs (|M.FZF_FIRST_SEARCH|: the returned handle's `server_up`), until the first
--- results (or the failure) come, and fzf's list streams in as each query's results arrive, so nothing else needs
--- refreshing. (Not fzf's --header: Debian's fzf 0.38 has no change-header, so the notice outlived the results.)
---@param text string
---@param starting? boolean
function M.pick(text, starting)
  local fzf_lua = require("fzf-lua")
  local by_line, last, last_query = {}, {}, text
  local previewer = fzf_previewer(function(line)
    return by_line[line]
  end)
  --- The starting notice goes with the first answer (results, an error or the server's failure to start).
  local function title(t)
    local ok, win = pcall(function() return require("fzf-lua").win.__SELF() end)
    if ok and win and win.update_main_title then
      pcall(win.update_main_title, win, t and (" " .. t .. " ") or nil)
    end
  end
  local function started()
    if not starting then
      return
    end
    starting = false
    title(nil)
  end
  --- fzf-lua's action opening the chosen entry `how` (|ragls.picker.open|).
  local function opener(how)
    return function(selected)
      local chunk = selected and by_line[selected[1]]
      if chunk then
        picker.open(chunk, how)
      end
    end
  end
  -- the keys of fzf-lua's own file pickers: ctrl-s / ctrl-v / ctrl-t open in a split / vertical split / tab, alt-q
  -- sends to quickfix too (ragls' lists are no file pickers: fzf-lua binds none of them there)
  local actions = {
    ["default"] = opener(nil),
    ["ctrl-s"] = opener("split"),
    ["ctrl-v"] = opener("vsplit"),
    ["ctrl-t"] = opener("tab"),
    ["ctrl-q"] = function()
      picker.to_quickfix(last_query, last)
    end,
  }
  actions["alt-q"] = actions["ctrl-q"]
  --- The contents of one query: a function fzf-lua calls with its callback.
  local function contents(q)
    return function(cb)
      if vim.trim(q or "") == "" then
        cb()
        return
      end
      picker.query(q, function(chunks)
        started()
        by_line, last, last_query = {}, chunks, q
        for _, chunk in ipairs(chunks) do
          local line = picker.format(chunk)
          by_line[line] = chunk
          cb(line)
        end
        if #chunks == 0 then
          cb(picker.nothing_found(q)) -- (no chunk behind it: choosing it opens nothing)
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
  --- |ragls.picker.pick|'s handle: told when the server is up (the title says the first search runs).
  local handle = {
    server_up = function()
      if starting then
        title(M.FZF_FIRST_SEARCH)
      end
    end,
  }
  if type(fzf_lua.fzf_live) == "function" then
    fzf_lua.fzf_live(function(args)
      -- fzf-lua passes the query as args[1] (older releases: the query string itself)
      return contents(type(args) == "table" and args[1] or args)
    end, { prompt = "RagQuery> ", query = text, exec_empty_query = false, actions = actions, previewer = previewer,
      winopts = winopts })
    return handle
  end
  local function show(q)
    fzf_lua.fzf_exec(contents(q), { prompt = "RagQuery> ", actions = actions, previewer = previewer,
      winopts = winopts })
  end
  if text ~= "" then
    show(text)
  else
    ui.input({ prompt = "RagQuery: " }, show)
  end
  return handle
end

return M
