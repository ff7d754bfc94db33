---@mod ragls.progress Indexing progress you can see, with no other plugin.
---
--- The server's work-done progress (`$/progress`, title "ragls: indexing") is rendered through |vim.notify| with a
--- stable id per progress token (`opts.id`, and `opts.replace` with the previous record), so notification plugins
--- (nvim-notify, snacks.notifier, mini.notify, noice) update one message in place. With Neovim's own
--- |vim.notify| the running reports are echoed on the cmdline, cut to one line (never a hit-enter prompt) and
--- without entering the message history, and only the end is a real notification. Quiet by design: only the first
--- index of the session is shown; later ones (a `:w` re-indexes the file) live in the statusline only, and no
--- progress is echoed for a few seconds after ragls showed a warning or an error, so it is not overwritten.
--- fidget.nvim renders |LspProgress| itself, so nothing is sent when it is loaded.
--- `require("ragls").statusline()` gives the same text for lualine and friends.

local config = require("ragls.config")
local text_width = require("ragls.text")

local M = {}

--- token -> { title, message, percentage, done }
M.active = {}
--- token -> what vim.notify returned (nvim-notify's record, to replace)
local records = {}
--- Last time (ms) a running report was shown, per token, to keep at most ~4 updates a second.
local shown_at = {}
local MIN_INTERVAL_MS = 250
--- How long (ms) progress stays off the cmdline after a ragls warning or error.
M.ERROR_HOLD_MS = 5000
--- `vim.uv.now()` of the last warning or error ragls showed (set by |ragls.rpc| notify).
M.last_error_at = nil
--- Whether an indexing progress has ended in this session: later ones are not notified.
M.first_done = false

--- `text` cut to what the cmdline shows without a hit-enter prompt (|v:echospace|).
---@param text string
---@return string
function M.fit(text)
  text = text:gsub("%s*\n%s*", " ")
  local room = math.max(20, vim.v.echospace - 1)
  return text_width.cut_to(text, room)
end

--- The indexing progress `message` while the server's embedding model loads (docs/protocol.md).
M.EMBEDDING_LOADING = "loading the embedding model"

--- "ragls: indexing 320/871 files (37%)"; "ragls: loading the embedding model (keyword search meanwhile)".
---@param p { title?: string, message?: string, percentage?: number }
---@return string
function M.text(p)
  local title = p.title or "ragls"
  if not title:match("^ragls") then
    title = "ragls: " .. title
  end
  local parts = { title }
  if (p.message or ""):sub(1, #M.EMBEDDING_LOADING) == M.EMBEDDING_LOADING then
    return "ragls: " .. p.message .. " (keyword search meanwhile)"
  end
  if p.message and p.message ~= "" then
    -- "ragls: indexing" + "indexing workspace" reads "ragls: indexing workspace", not "indexing indexing"; a step
    -- that says its own verb ("opening the index") reads "ragls: opening the index", not "indexing opening …".
    local verb = title:match("(%S+)$")
    local own = p.message:match("^(%a+ing)%s") -- (a lone word, "embedding", stays after the title)
    if verb and own and title:sub(1, #title - #verb):match("^ragls:%s*$") then
      parts = { "ragls:" }
    end
    table.insert(parts, p.message)
  end
  local text = table.concat(parts, " ")
  if p.percentage and not (p.message or ""):find("%", 1, true) then
    text = ("%s (%d%%)"):format(text, p.percentage)
  end
  return text
end

--- `M.text(p)` in at most `room` display columns: whole when it fits; else with the message's step alone, the part
--- before its first ": " ("loading the embedding model: using the bundled offline embedding model …" is the step
--- "loading the embedding model" and what it does meanwhile); else the message cut with "…" before the percentage,
--- which is kept ("ragls: indexing for meaning search in lo… (45%)": cutting the text's end lost it, the one figure
--- that says how far it is); when not even a few words of the message fit, the title and the percentage alone
--- ("ragls: indexing 45%"); else the text cut at its end.
---@param p { title?: string, message?: string, percentage?: number }
---@param room integer
---@return string
function M.fitting_text(p, room)
  local text = M.text(p):gsub("%s*\n%s*", " ")
  if vim.fn.strdisplaywidth(text) <= room then
    return text
  end
  local step = (p.message or ""):match("^(.-):%s")
  if step and step ~= "" then
    text = M.text({ title = p.title, message = step, percentage = p.percentage })
    if vim.fn.strdisplaywidth(text) <= room then
      return text
    end
  end
  if p.percentage and not (p.message or ""):find("%", 1, true) then
    local pct = (" (%d%%)"):format(p.percentage)
    local bare = M.text({ title = p.title, message = p.message }):gsub("%s*\n%s*", " ")
    local keep = room - vim.fn.strdisplaywidth(pct) - 1 -- (and "…")
    local title = M.text({ title = p.title })
    if keep - vim.fn.strdisplaywidth(title) >= 12 then -- a few words of the message, cut at a word's end
      local cut = text_width.display_prefix(bare, keep) -- columns, not characters: CJK takes two each
      local words = cut:gsub("%s+%S*$", "")
      if vim.fn.strcharpart(bare, vim.fn.strchars(cut), 1) ~= " "
          and vim.fn.strdisplaywidth(words) >= vim.fn.strdisplaywidth(title) + 12 then
        cut = words
      end
      return cut:gsub("[%s,;:]+$", "") .. "…" .. pct
    end
    local short = ("%s %d%%"):format(title, p.percentage)
    if vim.fn.strdisplaywidth(short) <= room then
      return short
    end
  end
  return text_width.cut_to(text, room)
end

--- The columns a ragls statusline component may take in a window `width` columns wide: half of it and at least 64
--- (an 80-column editor: 64), leaving 16 for the file name and the cursor's place (a split of 59 columns: 43, where
--- 64 went past the window's width, which cut the text's start: "<ng for faster answers …").
---@param width integer
---@return integer
function M.statusline_room(width)
  return math.max(1, math.min(width - 16, math.max(64, math.floor(width * 0.5))))
end

--- Whether vim.notify is still Neovim's own (echo + message history) rather than a notification plugin's.
---@return boolean
function M.default_notify()
  local info = debug.getinfo(vim.notify, "S")
  return info ~= nil and (info.source or ""):find("vim/_editor.lua", 1, true) ~= nil
end

---@param token string|integer
---@param kind "begin"|"report"|"end"
local function render(token, kind)
  local p = M.active[token]
  if not p or config.values.progress == false or package.loaded["fidget"] then
    return
  end
  if M.first_done and not p.shown then
    return -- a later index (a save, a file changed on disk): the statusline shows it
  end
  p.shown = true
  local now = vim.uv.now()
  if kind == "report" and shown_at[token] and now - shown_at[token] < MIN_INTERVAL_MS then
    return
  end
  shown_at[token] = now
  -- the end's message when it says more than "done" (older servers: "up to date", "idle")
  local plain = { [""] = true, done = true, idle = true, ["up to date"] = true }
  local done_msg = p.message ~= nil and not plain[p.message] and (" — " .. p.message) or ""
  local text = kind == "end" and ("ragls: indexed" .. done_msg) or M.text(p)
  if M.default_notify() then
    text = kind == "end" and M.fit(text) or M.fitting_text(p, math.max(20, vim.v.echospace - 1))
    if kind ~= "end" then
      if not (M.last_error_at and now - M.last_error_at < M.ERROR_HOLD_MS) then
        vim.api.nvim_echo({ { text } }, false, {})
      end
      return
    end
  end
  -- a plugin that cuts long lines (snacks.notifier: 46 columns of 120): the percentage kept, the end's text wrapped
  local room = require("ragls.notice").plugin_room()
  if room then
    text = kind == "end" and require("ragls.notice").for_plugin(text) or M.fitting_text(p, room)
  end
  local rec = vim.notify(text, vim.log.levels.INFO, {
    id = "ragls-progress-" .. tostring(token),
    title = "ragls",
    replace = records[token],
    hide_from_history = kind ~= "end",
    timeout = kind == "end" and 3000 or false,
    ragls_progress = kind,
  })
  records[token] = (kind ~= "end") and rec or nil
end

--- Feed one work-done progress notification (`$/progress` params whose value has `kind`).
---@param params { token: string|integer, value: table }
---@param client_id? integer the client whose server reports it (`M.reset` forgets its progress when it stops)
function M.on_progress(params, client_id)
  local token, value = params.token, params.value
  if value.kind == "begin" then
    M.active[token] = { title = value.title, message = value.message, percentage = value.percentage,
      client_id = client_id }
  elseif value.kind == "report" then
    local p = M.active[token]
    if not p then
      return
    end
    p.message = value.message or p.message
    p.percentage = value.percentage or p.percentage
  elseif value.kind == "end" then
    local p = M.active[token]
    if not p then
      return
    end
    p.message = value.message
    render(token, "end")
    M.first_done = true
    M.active[token] = nil
    shown_at[token] = nil
    M.redraw_statuslines()
    return
  else
    return
  end
  render(token, value.kind)
  M.redraw_statuslines()
end

--- Forget the progress of a client whose server stopped (its `end` will never come): the statusline and
--- :RagAsk's placeholder would say "indexing 40%" for good. Without `client_id`: every client's.
---@param client_id? integer
function M.reset(client_id)
  for token, p in pairs(M.active) do
    if client_id == nil or p.client_id == client_id then
      if records[token] ~= nil then -- a notifier's lasting "indexing 40%" note: replaced, then it times out
        local said = require("ragls.notice").for_plugin("ragls: indexing stopped: the server stopped")
        vim.notify(said, vim.log.levels.WARN, { id = "ragls-progress-"
          .. tostring(token), title = "ragls", replace = records[token], timeout = 3000, ragls_progress = "end" })
      end
      M.active[token], records[token], shown_at[token] = nil, nil, nil
    end
  end
  M.redraw_statuslines()
end

--- Redraw the statusline of every window (`:redrawstatus!`), not only the current one's: while the :RagAsk float
--- or a picker has the focus, the editor window's statusline stayed at "ragls: indexing 22%" after the index was
--- done, until something else redrew it (the float has no statusline of its own).
function M.redraw_statuslines()
  vim.cmd("redrawstatus!")
end

--- Whether the server is indexing (vectors still filling in).
---@return boolean
function M.indexing()
  return next(M.active) ~= nil
end

--- Statusline component: "ragls: indexing 320/871 files (37%)" while indexing (cut to half its window, up to 64
--- columns, keeping the percentage: |M.fitting_text|), "ragls" when attached to the current buffer, "ragls:
--- stopped (exit code 1)" when its server stopped on its own (until a :Rag* command restarts it), "ragls: off" for a
--- buffer outside any project, "" otherwise.
---@return string
function M.statusline()
  for _, p in pairs(M.active) do
    -- At most half the window whose statusline is drawn (|M.statusline_room|): a long progress line (the offline
    -- model's notice) filled the statusline, which then cut its start ("<") — the part that says what happens — and
    -- hid the file name. A long one says its step alone ("ragls: loading the embedding model (keyword search
    -- meanwhile)"), or keeps its percentage ("… (45%)").
    -- (a `%!` statusline is evaluated in the current window with |g:statusline_winid| set, a `%{}` item in the
    -- window whose statusline is drawn)
    local win = vim.g.statusline_winid
    local width = vim.api.nvim_win_get_width(win and vim.api.nvim_win_is_valid(win) and win or 0)
    return M.fitting_text(p, M.statusline_room(width))
  end
  local server = package.loaded["ragls.server"] -- (no server can have stopped before it was loaded)
  local ok, clients = pcall(vim.lsp.get_clients, { name = "ragls", bufnr = 0 })
  -- (not one whose server exited: Neovim lists it until a later step, and the statusline redrawn as its exit is
  -- handled kept "ragls" on the screen after a crash until something else redrew it)
  if ok and vim.iter(clients):any(function(c) return not (server and server.is_stopped(c)) end) then
    return "ragls"
  end
  -- The size of a first index measured before the server starts (|ragls-config-index_confirm_minutes|: `ragls estimate`).
  local root = package.loaded["ragls.root"]
  if root and vim.tbl_contains(vim.tbl_values(root.decisions or {}), "pending") then
    return "ragls: measuring the folder before indexing"
  end
  -- A server not answering `initialize` yet (its buffers attach once it does): Python loading ragls, a few seconds.
  if server and server.starting_since() then
    return "ragls: starting the server"
  end
  local stopped = server and server.exited_text(vim.api.nvim_get_current_buf())
  if stopped then
    return stopped
  end
  if vim.b.ragls_detached then
    return "ragls: off"
  end
  return ""
end

return M
