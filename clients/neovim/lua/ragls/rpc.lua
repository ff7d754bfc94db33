---@mod ragls.rpc Requests to the ragls server.
---
--- Everything that talks to the server goes through `M.request`: it gets the `ragls` client for the current
--- buffer's workspace from |ragls.server| (started if needed, once it is initialized), sends the request, and turns
--- JSON-RPC errors into `vim.notify` messages. Streaming `rag/ask` deltas (`$/progress` with `{ delta }`) are routed
--- to the callback registered for their `partialResultToken`; every other `$/progress` goes to Neovim's own handler.

local server = require("ragls.server")

local M = {}

local has_011 = vim.fn.has("nvim-0.11") == 1

-- partialResultToken -> function(delta: string)
local streams = {}
local token_seq = 0
-- client id -> { [request_id] = handler }: requests sent through `M.request` and not answered yet, failed by
-- `M.fail_pending` when their server stops (Neovim never calls a request's handler once its server has gone).
local pending = {}

--- The `err.code` of a request whose server stopped before it answered (not a JSON-RPC code: set by the plugin).
M.SERVER_EXITED = "server-exited"

--- Say `msg` to the user (|vim.notify|, titled "ragls"). With Neovim's own vim.notify a message wider than the
--- command line would stop on a hit-enter prompt: |ragls.notice| shows it whole in a float instead; a plugin that
--- cuts long lines (snacks.notifier) gets it wrapped at its width (|ragls.notice| `for_plugin`).
---@param msg string
---@param level? integer
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  local progress = require("ragls.progress")
  if level >= vim.log.levels.WARN then
    progress.last_error_at = vim.uv.now() -- progress must not overwrite it on the cmdline
  end
  local notice = require("ragls.notice")
  if progress.default_notify() and not notice.fits_cmdline(msg) then
    notice.show(msg, level)
    return
  end
  -- `ft`, read by snacks.notifier only (its toasts are Markdown): plain text unless the notice quotes code in
  -- backticks; as Markdown git's "[main 1a2b3c4] subject" after :RagCommit showed as a link "main 1a2b3c4", and "no
  -- source [3]" as "no source 3"
  vim.notify(notice.for_plugin(msg), level, { title = "ragls", ft = not msg:find("`", 1, true) and "text" or nil })
end

--- `window/showMessage` handler of the ragls client: the server's warnings (an untrusted ragls.toml's ignored
--- settings, a full disk) and errors through `M.notify`, so one wider than the command line does not stop on a
--- hit-enter prompt.
function M.show_message_handler(_, result, ctx)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  if not (result and type(result.message) == "string") then
    return vim.NIL
  end
  local msg, level = result.message, levels[result.type] or vim.log.levels.INFO
  local function show(text)
    M.notify(text:find("^ragls") and text or ("ragls: " .. text), level)
  end
  local client = result.type == 2 and ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    show(msg)
    return vim.NIL
  end
  -- A warning: when rag/status has it as an untrusted ragls.toml's (its `trustHow`, newer servers), its how-to-trust
  -- end is said the Neovim way (|ragls.status_view.error_line|: ":RagTrust", where it said to run `ragls trust DIR`
  -- in a shell, which applies only once the server restarts); as it came otherwise.
  local ok = pcall(M.client_request, client, "rag/status", vim.empty_dict(), function(err, status)
    local said = msg:gsub("^ragls: ", "")
    for _, e in ipairs(not err and type(status) == "table" and status.errors or {}) do
      if e.severity == "warning" and type(e.trustHow) == "string" and e.message == said then
        return show("ragls: " .. require("ragls.status_view").error_line(e))
      end
    end
    show(msg)
  end)
  if not ok then
    show(msg)
  end
  return vim.NIL
end

--- Workspace root for a buffer: the nearest directory with one of `root_markers`, else a folder given to
--- |:RagIndex|; nil (with the reason) outside every project. See |ragls.root|.
---@param bufnr? integer
---@return string|nil root
---@return string|nil why
function M.root_dir(bufnr)
  return require("ragls.root").for_buffer(bufnr)
end

--- `$/progress` handler: streamed answer deltas go to their stream; work-done progress is shown by
--- |ragls.progress| and passed on to Neovim's handler (|LspProgress|, |vim.lsp.status()|).
function M.progress_handler(err, result, ctx, cfg)
  local value = result and result.value
  if type(value) == "table" and value.delta ~= nil and value.kind == nil then
    local cb = streams[result.token]
    if cb then
      cb(value.delta)
    end
    return vim.NIL
  end
  if type(value) == "table" and value.kind ~= nil then
    local ok, perr = pcall(require("ragls.progress").on_progress, result, ctx and ctx.client_id)
    if not ok then
      vim.schedule(function()
        M.notify("ragls: could not show the indexing progress (a plugin bug, please report it): " .. perr,
          vim.log.levels.WARN)
      end)
    end
  end
  return vim.lsp.handlers["$/progress"](err, result, ctx, cfg)
end

--- Fail every request sent to client `client_id` through `M.request` that is still waiting for its answer: its
--- server stopped (|ragls.server.on_exit|). Each one's error has `err.code` `SERVER_EXITED` and `message`.
---@param client_id integer
---@param message string e.g. "the server stopped (killed by signal 9) before it answered"
---@return boolean failed true when a request was waiting
function M.fail_pending(client_id, message)
  local waiting = pending[client_id] or {}
  pending[client_id] = nil
  for _, handler in pairs(waiting) do
    handler({ code = M.SERVER_EXITED, message = message })
  end
  return next(waiting) ~= nil
end

--- Client request, on both 0.10 (`client.request`) and 0.11 (`client:request`).
---@return boolean ok
---@return integer|nil request_id
function M.client_request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Cancel a request: Neovim calls no handler for it afterwards, so it no longer waits on the server (`M.fail_pending`).
---@param client vim.lsp.Client
---@param request_id integer
function M.cancel(client, request_id)
  if pending[client.id] then
    pending[client.id][request_id] = nil
  end
  if has_011 then
    client:cancel_request(request_id)
  else
    client.cancel_request(request_id)
  end
end

--- What each request is, in the user's words (errors never show protocol method names).
M.request_names = {
  ["rag/query"] = "search",
  ["rag/ask"] = "answer",
  ["rag/rebuild"] = "rebuild",
  ["rag/status"] = "status",
  ["rag/commitMessage"] = "commit message",
}

--- Human text for a JSON-RPC error from the server, e.g. "ragls: search failed: query must not be empty".
---@param method string
---@param err table  { code, message }
---@return string
function M.error_text(method, err)
  local what = M.request_names[method] or "request"
  local message = err.message or ""
  if err.code == -32601 then
    return ("ragls: this server version cannot do %s; update it (pip install -U ragls)"):format(what)
  end
  if err.code == -32800 then
    return ("ragls: %s cancelled"):format(what)
  end
  if err.code == M.SERVER_EXITED then
    return ("ragls: %s failed: %s; run the command again to restart it (%s)"):format(what, message, server.log_hint)
  end
  if err.code == -32602 or err.code == -32803 then
    return ("ragls: %s failed: %s"):format(what, message)
  end
  return ("ragls: %s failed (server error %s): %s; %s"):format(what, tostring(err.code), message, server.log_hint)
end

--- Send a request to the workspace's ragls server.
--- `on_result(result, client)` runs only on success; errors are reported with `vim.notify` (cancellation silently),
--- unless `opts.on_error(err)` returns true: it showed the error itself (the answer float says it; a notification
--- besides would repeat it, and one wider than the command line stops on a hit-enter prompt).
---@param method string  e.g. "rag/query"
---@param params table
---@param on_result fun(result: any, client: vim.lsp.Client)
--- `opts.error_text(err)` may return the text to notify instead of `M.error_text(method, err)` (nil: the default).
--- `opts.on_wait` / `opts.on_fail`: as |ragls.server.with_client|'s hooks, while the server starts.
---@param opts? { on_error?: fun(err: table): boolean|nil, on_sent?: fun(client: vim.lsp.Client, request_id: integer),
---               error_text?: fun(err: table): string|nil, on_wait?: fun(client: vim.lsp.Client),
---               on_fail?: fun(msg: string): boolean|nil }
function M.request(method, params, on_result, opts)
  opts = opts or {}
  server.with_client(function(client)
    local request_id
    local answered = false
    local function handler(err, result)
      if answered then -- a reply after the exit handler failed it (cannot happen once the process is gone)
        return
      end
      answered = true
      if pending[client.id] and request_id then
        pending[client.id][request_id] = nil
      end
      if err then
        local shown = opts.on_error and opts.on_error(err) == true
        if err.code ~= -32800 and not shown then
          local text = opts.error_text and opts.error_text(err) or M.error_text(method, err)
          M.notify(text, vim.log.levels.ERROR)
        end
        return
      end
      local ok, perr = xpcall(on_result, debug.traceback, result, client)
      if not ok then
        M.notify(("ragls: could not show the %s result (a plugin bug, please report it): %s"):format(method, perr),
          vim.log.levels.ERROR)
      end
    end
    local ok
    ok, request_id = M.client_request(client, method, params, handler, 0)
    if ok and request_id then
      pending[client.id] = pending[client.id] or {}
      pending[client.id][request_id] = handler
    end
    if not ok then
      M.notify("ragls: the server has shut down; run the command again to restart it (" .. server.log_hint .. ")",
        vim.log.levels.ERROR)
      return
    end
    if opts.on_sent then
      opts.on_sent(client, request_id)
    end
  end, { on_wait = opts.on_wait, on_fail = opts.on_fail })
end

--- A fresh `partialResultToken` whose deltas are passed to `on_delta`. Release it with `M.close_stream`.
---@param on_delta fun(delta: string)
---@return string token
function M.open_stream(on_delta)
  token_seq = token_seq + 1
  local token = ("ragls-ask-%d-%d"):format(vim.fn.getpid(), token_seq)
  streams[token] = on_delta
  return token
end

---@param token string
function M.close_stream(token)
  streams[token] = nil
end

return M
