---@mod ragls.rpc Client lookup, start, and requests to the ragls server.
---
--- Everything that talks to the server goes through `M.request`: it finds (or starts) the `ragls` client for the
--- current buffer's workspace, waits until it is initialized, sends the request, and turns JSON-RPC errors into
--- `vim.notify` messages. Streaming `rag/ask` deltas (`$/progress` with `{ delta }`) are routed to the callback
--- registered for their `partialResultToken`; every other `$/progress` goes to Neovim's own handler.

local config = require("ragls.config")

local M = {}

M.name = "ragls"

local has_011 = vim.fn.has("nvim-0.11") == 1

-- partialResultToken -> function(delta: string)
local streams = {}
local token_seq = 0

--- Install instructions shown when the server command is missing.
M.install_hint = "Install the server with `pip install ragls` (or `pip install -e .` in a ragls checkout), "
  .. "or point the plugin at it: require('ragls').setup({ cmd = { '/path/to/ragls', 'serve' } })"

---@param msg string
---@param level? integer
function M.notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "ragls" })
end

--- Nearest directory above `source` (a buffer number or a path) holding a root marker. Markers are tried one
--- at a time, so ragls.toml wins over an enclosing .git.
---@param source integer|string
---@return string|nil
local function find_root(source)
  for _, marker in ipairs(config.values.root_markers) do
    local root = vim.fs.root(source, marker)
    if root then
      return root
    end
  end
end

--- Workspace root for a buffer: nearest dir with one of `root_markers` (ragls.toml, .git), else the same search
--- from the cwd, else the cwd.
---@param bufnr? integer
---@return string
function M.root_dir(bufnr)
  bufnr = bufnr or 0
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    root = find_root(bufnr)
  end
  if not root then
    local cwd = vim.fn.getcwd()
    root = find_root(cwd) or cwd
  end
  return vim.fs.normalize(root)
end

--- `$/progress` handler: streamed answer deltas go to their stream, the rest to Neovim's handler.
function M.progress_handler(err, result, ctx, cfg)
  local value = result and result.value
  if type(value) == "table" and value.delta ~= nil and value.kind == nil then
    local cb = streams[result.token]
    if cb then
      cb(value.delta)
    end
    return vim.NIL
  end
  return vim.lsp.handlers["$/progress"](err, result, ctx, cfg)
end

--- The `vim.lsp.ClientConfig` for a root dir.
---@param root string
---@return table
function M.client_config(root)
  local cfg = config.values
  return {
    name = M.name,
    cmd = cfg.cmd,
    root_dir = root,
    init_options = cfg.settings,
    settings = { ragls = cfg.settings },
    handlers = { ["$/progress"] = M.progress_handler },
  }
end

--- Is the server command runnable?
---@return boolean ok
---@return string|nil err
function M.check_cmd()
  local exe = config.values.cmd[1]
  if vim.fn.executable(exe) == 1 then
    return true, nil
  end
  return false, ("ragls: server command `%s` not found. %s"):format(exe, M.install_hint)
end

local warned_missing = false

---@param client vim.lsp.Client
---@return boolean
function M.is_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- The running ragls client for `root` (or any ragls client when `root` is nil).
---@param root? string
---@return vim.lsp.Client|nil
function M.find_client(root)
  local clients = vim.lsp.get_clients({ name = M.name })
  local fallback
  for _, client in ipairs(clients) do
    if not M.is_stopped(client) then
      if root == nil or vim.fs.normalize(client.root_dir or "") == root then
        return client
      end
      for _, folder in ipairs(client.workspace_folders or {}) do
        if vim.fs.normalize(vim.uri_to_fname(folder.uri)) == root then
          return client
        end
      end
      fallback = fallback or client
    end
  end
  return root == nil and fallback or nil
end

--- Start (or reuse) the client for a buffer's workspace.
--- A missing server command is reported with |vim.notify|: every time for an explicit start (no `bufnr`, as from
--- a :Rag* command), once per session for attaching to buffers (so that opening files does not repeat it).
---@param bufnr? integer buffer to attach to (must be a file buffer); nil: start without attaching
---@param root? string default: root of bufnr / cwd
---@return integer|nil client_id
function M.start(bufnr, root)
  local ok, err = M.check_cmd()
  if not ok then
    if bufnr == nil or not warned_missing then
      M.notify(err, vim.log.levels.ERROR)
    end
    if bufnr ~= nil then
      warned_missing = true
    end
    return nil
  end
  root = root or M.root_dir(bufnr or 0)
  local cfg = M.client_config(root)
  if bufnr then
    return vim.lsp.start(cfg, { bufnr = bufnr })
  end
  local existing = M.find_client(root)
  if existing then
    return existing.id
  end
  if has_011 then
    return vim.lsp.start(cfg, { attach = false })
  end
  return vim.lsp.start_client(cfg)
end

--- Call `fn(client)` once the ragls client for the current workspace is initialized; starts it if needed.
--- Notifies and gives up after `start_timeout_ms`.
---@param fn fun(client: vim.lsp.Client)
function M.with_client(fn)
  local bufnr = vim.api.nvim_get_current_buf()
  local root = M.root_dir(bufnr)
  local client = M.find_client(root) or M.find_client(nil)
  if not client then
    local id = M.start(nil, root)
    if not id then
      return
    end
    client = vim.lsp.get_client_by_id(id)
    if not client then
      M.notify("ragls: the server exited during startup; see :LspLog", vim.log.levels.ERROR)
      return
    end
  end
  if client.initialized then
    return fn(client)
  end
  local timer = assert(vim.uv.new_timer())
  local waited = 0
  timer:start(50, 50, vim.schedule_wrap(function()
    waited = waited + 50
    local c = vim.lsp.get_client_by_id(client.id)
    if c and c.initialized then
      timer:stop()
      timer:close()
      fn(c)
    elseif not c or waited >= config.values.start_timeout_ms then
      timer:stop()
      timer:close()
      M.notify(
        c and ("ragls: the server did not initialize within %d ms; see :LspLog"):format(config.values.start_timeout_ms)
          or "ragls: the server exited during startup; see :LspLog",
        vim.log.levels.ERROR
      )
    end
  end))
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

---@param client vim.lsp.Client
---@param request_id integer
function M.cancel(client, request_id)
  if has_011 then
    client:cancel_request(request_id)
  else
    client.cancel_request(request_id)
  end
end

--- Human text for a JSON-RPC error from the server.
---@param method string
---@param err table  { code, message }
---@return string
function M.error_text(method, err)
  local what = ({
    [-32602] = "invalid request",
    [-32803] = "request failed",
    [-32800] = "cancelled",
    [-32601] = "not supported by this server version",
  })[err.code] or ("error " .. tostring(err.code))
  return ("ragls: %s %s: %s"):format(method, what, err.message or "")
end

--- Send a request to the workspace's ragls server.
--- `on_result(result, client)` runs only on success; errors are reported with `vim.notify` (cancellation silently).
---@param method string  e.g. "rag/query"
---@param params table
---@param on_result fun(result: any, client: vim.lsp.Client)
--- `opts.error_text(err)` may return the text to notify instead of `M.error_text(method, err)` (nil: the default).
---@param opts? { on_error?: fun(err: table), on_sent?: fun(client: vim.lsp.Client, request_id: integer),
---               error_text?: fun(err: table): string|nil }
function M.request(method, params, on_result, opts)
  opts = opts or {}
  M.with_client(function(client)
    local ok, request_id = M.client_request(client, method, params, function(err, result)
      if err then
        if opts.on_error then
          opts.on_error(err)
        end
        if err.code ~= -32800 then
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
    end, 0)
    if not ok then
      M.notify("ragls: the server has shut down; restart it with :LspRestart or reopen the file", vim.log.levels.ERROR)
      return
    end
    if opts.on_sent then
      opts.on_sent(client, request_id)
    end
  end)
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
