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
-- client id -> { [request_id] = handler }: requests sent through `M.request` and not answered yet, failed by
-- `M.on_exit` when their server stops (Neovim never calls a request's handler once its server has gone).
local pending = {}

--- root -> { how = "exit code 1" | "killed by signal 9", buffers = { [bufnr] = true } }: a server that stopped
--- on its own (a crash, a kill; not a clean shutdown), until another starts for that root (|M.start|: a :Rag*
--- command, or a file opened below the root), which attaches those buffers again. The statusline says
--- "ragls: stopped (…)" for them meanwhile.
M.exited = {}

--- The `err.code` of a request whose server stopped before it answered (not a JSON-RPC code: set by the plugin).
M.SERVER_EXITED = "server-exited"

--- Install instructions shown when the server command is missing.
M.install_hint = "Install the server from a ragls checkout with `python3 -m pip install '/path/to/ragls[offline]'` "
  .. "(or `pip install -e .` inside it), or point the plugin at it: "
  .. "require('ragls').setup({ cmd = { '/path/to/venv/bin/ragls', 'serve' } })"

---@param msg string
---@param level? integer
function M.notify(msg, level)
  if (level or vim.log.levels.INFO) >= vim.log.levels.WARN then
    require("ragls.progress").last_error_at = vim.uv.now() -- progress must not overwrite it on the cmdline
  end
  vim.notify(msg, level or vim.log.levels.INFO, { title = "ragls" })
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

--- Shown above Neovim's trust question for a folder's ragls.toml: the longest that fits in |v:echospace| (a longer
--- one makes Neovim ask for Enter before the question).
M.trust_context = {
  "ragls: allowing this ragls.toml lets it set LLM endpoints, keys, loaders and outside sources; "
    .. "otherwise it only tunes retrieval.",
  "ragls: allow = its LLM/key/loader settings apply; else it only tunes retrieval",
  "ragls: allow = its LLM and loader settings apply",
  "ragls: allow = its LLM settings apply",
}

--- Will |vim.secure.read()| ask about `path`? Not when Neovim's trust database (stdpath("state") .. "/trust",
--- lines "<sha256> <path>", "! <path>" for denied) already allows this version of the file or denies it.
---@param path string
---@return boolean
function M.trust_will_ask(path)
  local full = vim.uv.fs_realpath(vim.fs.normalize(path))
  local ok, db = pcall(vim.fn.readfile, vim.fs.joinpath(vim.fn.stdpath("state"), "trust"))
  local f = full and io.open(full, "rb")
  if not (ok and f) then
    return true
  end
  local digest = vim.fn.sha256(f:read("*a") or "")
  f:close()
  for _, line in ipairs(db) do
    local hash, file = line:match("^(%S+) (.+)$")
    if file == full and (hash == "!" or hash == digest) then
      return false
    end
  end
  return true
end

--- Folder trust, the |exrc| way: when `root` has a ragls.toml and a UI is attached, |vim.secure.read()| asks
--- once per version of the file ("allow" is remembered in Neovim's trust database; an edited file asks again).
--- true when allowed, with the SHA-256 of the version the user allowed ("sha256:<hex>"): the server applies all of
--- that file, and only of that version (an edit between the answer and the server's start is not trusted). nil
--- otherwise (no file, headless, ignored or denied): the user's ragls trust store (`ragls trust`) decides, and
--- untrusted the file only tunes retrieval.
---@param root string
---@return boolean|nil trusted
---@return string|nil digest "sha256:<hex>" of the allowed ragls.toml
function M.workspace_trusted(root)
  local path = root .. "/ragls.toml"
  if vim.fn.filereadable(path) == 0 or not (vim.secure and vim.secure.read) or #vim.api.nvim_list_uis() == 0 then
    return nil
  end
  if M.trust_will_ask(path) then
    -- vim.secure.read's own question names only the file: say what allowing it changes first.
    local text = require("ragls.text").longest_fitting(M.trust_context, vim.v.echospace + 4) -- no hit-enter
    if text then
      vim.api.nvim_echo({ { text, "WarningMsg" } }, true, {})
    end
  end
  local ok, content = pcall(vim.secure.read, path)
  if not (ok and content ~= nil) then
    return nil
  end
  return true, "sha256:" .. vim.fn.sha256(content)
end

--- After you saved a running server's `<root>/ragls.toml`: ask |vim.secure.read()| about the new version (an
--- edited file asks again, as 'exrc' does) and, allowed, send its hash with `workspaceTrusted` in a
--- `workspace/didChangeConfiguration`, so the server keeps applying all of the file. Not allowed (or headless):
--- nothing is sent, and the edited file only tunes retrieval until the trust store or a later answer says so.
---@param bufnr integer the ragls.toml buffer just written
function M.retrust(bufnr)
  local path = vim.uv.fs_realpath(vim.api.nvim_buf_get_name(bufnr))
  if not path or vim.fs.basename(path) ~= "ragls.toml" then
    return
  end
  local root = vim.fs.normalize(vim.fs.dirname(path))
  local client = M.find_client(root)
  if not client then
    return
  end
  local trusted, digest = M.workspace_trusted(root)
  if not trusted then
    return
  end
  local settings = vim.deepcopy((client.settings or {}).ragls or config.values.settings or {})
  settings.workspaceTrusted = true
  settings.workspaceTrustedConfigs = { [root] = digest }
  local params = { settings = { ragls = settings } }
  if has_011 then
    client:notify("workspace/didChangeConfiguration", params)
  else
    client.notify("workspace/didChangeConfiguration", params)
  end
end

--- The `vim.lsp.ClientConfig` for a root dir.
---@param root string
---@return table
function M.client_config(root)
  local cfg = config.values
  local init = vim.deepcopy(cfg.settings or {})
  local trusted, digest = M.workspace_trusted(root)
  init.workspaceTrusted = trusted
  if digest then
    init.workspaceTrustedConfigs = { [root] = digest }
  end
  return {
    name = M.name,
    cmd = M.server_cmd(cfg.cmd, root),
    root_dir = root,
    init_options = init,
    settings = { ragls = cfg.settings },
    handlers = { ["$/progress"] = M.progress_handler },
    on_exit = M.on_exit,
    on_init = M.on_init,
  }
end

--- a server's RPC client (`client.rpc`) -> { code, signal, explained } of its exit as the process ended (weak keys):
--- |M.server_cmd| reports an exit that ragls explains to vim.lsp as a clean one, and |M.on_exit| reads the real one.
local exits = setmetatable({}, { __mode = "k" })

--- Does ragls say itself that the server of `root` stopped (|M.on_exit|)? A crash (an exit code other than 0, or a
--- signal other than SIGTERM, which is how Neovim stops a server that did not exit when asked: what |vim.lsp| calls
--- "quit with exit code ..."), while Neovim is not quitting and no other ragls server serves that folder.
---@param root string|nil the server's root dir, normalized
---@param code integer|nil
---@param signal integer|nil
---@param rpc_client table|nil the stopped server's `client.rpc` (not another server, while it is still listed)
---@return boolean
local function explains_exit(root, code, signal, rpc_client)
  local crashed = (code or 0) ~= 0 or ((signal or 0) ~= 0 and signal ~= 15)
  return crashed and root ~= nil and vim.v.exiting == vim.NIL and M.find_client(root, rpc_client) == nil
end

--- The `cmd` of the ragls client's config (|vim.lsp.ClientConfig| takes a function there): starts `command` with
--- |vim.lsp.rpc.start()| as vim.lsp does a `cmd` list, and reports the exit of a server whose stop ragls explains
--- itself (|M.on_exit|: the Python exception a failed start printed, "killed by signal 9", "run any :Rag* command to
--- restart it") to vim.lsp as a clean one (exit code 0, no signal). vim.lsp uses that code only for its own notice,
--- "Client ragls quit with exit code 1 and signal 0. Check log for errors: <path>", which came as a second message
--- for the one failure; |M.on_exit| gets the real code and signal. Every other exit reaches vim.lsp as it was.
---@param command string[] the server command, e.g. { "ragls", "serve" }
---@param root? string the root dir (for Neovim 0.10, which passes `cmd` no config)
---@return fun(dispatchers: vim.lsp.rpc.Dispatchers, client_config?: table): vim.lsp.rpc.PublicClient
function M.server_cmd(command, root)
  return function(dispatchers, client_config)
    local cfg = client_config or {}
    local dir = type(cfg.root_dir) == "string" and cfg.root_dir or root
    local on_exit = dispatchers.on_exit
    local rpc_client
    local ours = vim.tbl_extend("force", dispatchers, {
      on_exit = function(code, signal)
        local explained = explains_exit(dir and vim.fs.normalize(dir), code, signal, rpc_client)
        exits[rpc_client or {}] = { code = code, signal = signal, explained = explained }
        if explained then
          return on_exit(0, 0)
        end
        return on_exit(code, signal)
      end,
    })
    rpc_client = vim.lsp.rpc.start(command, ours, { cwd = cfg.cmd_cwd, env = cfg.cmd_env, detached = cfg.detached })
    return rpc_client
  end
end

--- `on_exit` of the ragls client (also in `lsp/ragls.lua`): every request still waiting on that server fails with
--- `err.code` `SERVER_EXITED` and a message saying how it stopped, so an answer float or a chat turn
--- streaming when the server crashed (or was killed) says so instead of waiting forever; its indexing progress is
--- forgotten (the statusline said "indexing 40%" for good). A crash (|explains_exit|) is said once: by the request
--- or command that waited, else by a notification (vim.lsp's own notice is left out, |M.server_cmd|). Runs
--- scheduled (the exit callback comes from libuv).
---@param code integer exit code of the server process (0 when |M.server_cmd| left vim.lsp's notice out)
---@param signal integer the signal that ended it, 0 when none
---@param client_id integer
function M.on_exit(code, signal, client_id)
  -- (the client object is still there while its exit callbacks run; Neovim drops it in a scheduled step)
  local client = vim.lsp.get_client_by_id(client_id)
  local root = client and client.root_dir and vim.fs.normalize(client.root_dir)
  local buffers = vim.deepcopy(client and client.attached_buffers or {})
  local never_initialized = client ~= nil and not client.initialized
  if client and client.config then
    M.starting_configs[client.config] = nil -- it exited before initialize answered
  end
  local real = client and client.rpc and exits[client.rpc]
  if real then
    code, signal = real.code, real.signal
  end
  -- (a server started with a `cmd` list of the user's own, not |M.server_cmd|: Neovim's notice comes too)
  local explained = real and real.explained or (not real and explains_exit(root, code, signal, client and client.rpc))
  vim.schedule(function()
    require("ragls.progress").reset(client_id) -- an index run it reported never ends now
    local waiting = pending[client_id] or {}
    pending[client_id] = nil
    local how = (signal or 0) ~= 0 and ("killed by signal %d"):format(signal) or ("exit code %d"):format(code or 0)
    for _, handler in pairs(waiting) do
      handler({ code = M.SERVER_EXITED, message = ("the server stopped (%s) before it answered"):format(how) })
    end
    -- (SIGTERM is how Neovim stops a server that did not exit when asked, `client:stop(true)`: no crash, as vim.lsp
    -- has it; it said "the server stopped (killed by signal 15); run any :Rag* command to restart it")
    if not explained then
      return -- a clean shutdown (:lua vim.lsp.stop_client, quitting Neovim), or another server serves the root
    end
    M.exited[root] = { how = how, buffers = buffers }
    require("ragls.progress").redraw_statuslines()
    -- (a request it failed has said so already; so does a command waiting for it to start, |when_initialized|)
    if next(waiting) == nil and not (never_initialized and M.waiting_start[client_id]) then
      -- one that stopped before it answered `initialize` says why when it printed a Python exception
      local why = never_initialized and M.startup_error()
      M.notify(why and M.startup_failure()
        or ("ragls: the server stopped (%s); run any :Rag* command to restart it (%s)"):format(how, M.log_hint),
        vim.log.levels.WARN)
    end
  end)
end

--- "ragls: stopped (exit code 1)" for a buffer whose server stopped on its own (|M.exited|), else nil.
---@param bufnr integer
---@return string|nil
function M.exited_text(bufnr)
  for _, rec in pairs(M.exited) do
    if rec.buffers[bufnr] then
      return ("ragls: stopped (%s)"):format(rec.how)
    end
  end
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
---@param except_rpc? table leave out the client with this `client.rpc` (one whose server just exited)
---@return vim.lsp.Client|nil
function M.find_client(root, except_rpc)
  local clients = vim.lsp.get_clients({ name = M.name })
  local fallback
  for _, client in ipairs(clients) do
    if not M.is_stopped(client) and (except_rpc == nil or client.rpc ~= except_rpc) then
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

--- Start (or reuse) the client for `root`, attaching `bufnr` when given. The caller decides that `root` may be
--- indexed (|ragls.root.gate|). A missing server command returns nil silently: the :Rag* commands report it.
---@param bufnr? integer buffer to attach to (must be a file buffer); nil: start without attaching
---@param root string
---@return integer|nil client_id
function M.start(bufnr, root)
  if not M.check_cmd() then
    return nil
  end
  local cfg = M.client_config(root)
  local id
  if bufnr then
    id = vim.lsp.start(cfg, { bufnr = bufnr })
  else
    local existing = M.find_client(root)
    if existing then
      return existing.id
    end
    id = has_011 and vim.lsp.start(cfg, { attach = false }) or vim.lsp.start_client(cfg)
  end
  local started = id and vim.lsp.get_client_by_id(id)
  if started and not started.initialized then
    M.starting[id] = M.starting[id] or vim.uv.now()
    require("ragls.progress").redraw_statuslines() -- "ragls: starting the server"
  end
  local stopped = M.exited[root]
  if id and stopped then -- a restart after a crash: the buffers the stopped server had are attached again
    M.exited[root] = nil
    for b in pairs(stopped.buffers) do
      if b ~= bufnr and vim.api.nvim_buf_is_loaded(b) then
        vim.lsp.buf_attach_client(b, id)
      end
    end
  end
  return id
end

--- Hint for a server that exited or failed to start (commands that exist in stock Neovim).
M.log_hint = "see :checkhealth ragls and the log (:lua vim.cmd.edit(vim.lsp.log.get_filename()))"

--- The Python exception a server that exited while it started printed on stderr ("ModuleNotFoundError: No module
--- named 'lsprotocol'": a Python that imports ragls but not its libraries), read from the end of Neovim's LSP log,
--- where |vim.lsp| writes a server's stderr ("rpc" <cmd> "stderr" "<text>" lines at ERROR); nil when the log has
--- none (its level set to OFF, or another cause).
---@return string|nil
function M.startup_error()
  local ok, path = pcall(function() return vim.lsp.log.get_filename() end)
  local f = ok and path and io.open(path, "rb")
  if not f then
    return nil
  end
  local size = f:seek("end")
  f:seek("set", math.max(0, size - 16384))
  local tail = f:read("*a") or ""
  f:close()
  local text = {}
  for line in tail:gmatch("[^\n]+") do
    -- (vim.inspect quotes a chunk with ' when it holds a " and no ': "Traceback ... File "<frozen runpy>" ...")
    local _, chunk = line:match([=["stderr"%s+(["'])(.*)%1%s*$]=])
    if chunk then
      table.insert(text, (chunk:gsub('\\n', "\n"):gsub([=[\(["'])]=], "%1"):gsub("\\\\", "\\")))
    end
  end
  local all = table.concat(text)
  local at = all:match(".*()Traceback %(most recent call last%):")
  if not at then
    return nil
  end
  local found
  for line in all:sub(at):gmatch("[^\n]+") do
    if line:match("^[%a_][%w_.]*Error%f[^%w]") or line:match("^[%a_][%w_.]*Exception%f[^%w]") then
      found = line
    end
  end
  return found and vim.trim(found)
end

--- "ragls: the server exited during startup" and why: the exception it printed (|M.startup_error()|), with what to
--- do for one of an import, else where the log is.
---@return string
function M.startup_failure()
  local err = M.startup_error()
  if not err then
    return "ragls: the server exited during startup; " .. M.log_hint
  end
  if err:match("^ModuleNotFoundError") or err:match("^ImportError") then
    return ("ragls: the server exited during startup: %s. The Python that runs it lacks a library ragls needs: "
      .. "install ragls there again (python -m pip install '/path/to/ragls[offline]'), or set `cmd` to the "
      .. "ragls that has it (:checkhealth ragls)"):format(err)
  end
  return ("ragls: the server exited during startup: %s (%s)"):format(err, M.log_hint)
end

--- Say `msg` through `hooks.on_fail(msg)` when it returns true (the caller showed it, e.g. in the answer float),
--- else as a notification at `level`.
local function fail(hooks, msg, level)
  if not (hooks and hooks.on_fail and hooks.on_fail(msg) == true) then
    M.notify(msg, level)
  end
end

--- client id -> when it started (|vim.uv.now()| ms): servers started by the plugin that have not answered
--- `initialize` yet (Python loading ragls: a few seconds, more on a busy machine). Neovim's |vim.lsp.get_clients()|
--- lists a client only once it is initialized.
M.starting = {}

--- client config -> when it started (ms): servers Neovim started itself (`vim.lsp.enable("ragls")` with
--- `lsp/ragls.lua`), from `before_init` (the client exists, its id is not passed) until `on_init` or `on_exit`.
M.starting_configs = setmetatable({}, { __mode = "k" })

--- Since when (ms) a ragls server has been starting, nil when none is.
---@return integer|nil
function M.starting_since()
  local since
  for id, at in pairs(M.starting) do
    local c = vim.lsp.get_client_by_id(id)
    if not c or c.initialized or M.is_stopped(c) then
      M.starting[id] = nil
    elseif not since or at < since then
      since = at
    end
  end
  for cfg, at in pairs(M.starting_configs) do
    if vim.uv.now() - at > config.values.start_timeout_ms then
      M.starting_configs[cfg] = nil -- never initialized nor exited: the client gave up
    elseif not since or at < since then
      since = at
    end
  end
  return since
end

--- `before_init` of the ragls client of `lsp/ragls.lua` (`vim.lsp.enable`): it is starting (the statusline says
--- so until `M.on_init`).
---@param _ table InitializeParams
---@param cfg table the client's config (`client.config`)
function M.before_init(_, cfg)
  M.starting_configs[cfg] = vim.uv.now()
  vim.schedule(function()
    require("ragls.progress").redraw_statuslines()
  end)
end

--- `on_init` of the ragls client: it started (the statusline stops saying "starting").
---@param client vim.lsp.Client
function M.on_init(client)
  M.starting[client.id] = nil
  M.starting_configs[client.config or {}] = nil
  vim.schedule(function()
    require("ragls.progress").redraw_statuslines()
  end)
end

--- client id -> how many commands wait for that server to answer `initialize` (|when_initialized|): each says
--- itself why when it exits first, so |M.on_exit| does not.
M.waiting_start = {}

--- Call `fn(client)` once `client` is initialized (`hooks.on_wait(client)` first when it must wait for that);
--- says why and gives up after `start_timeout_ms`, or when the server exits first.
---@param client vim.lsp.Client
---@param fn fun(client: vim.lsp.Client)
---@param hooks? { on_wait?: fun(client: vim.lsp.Client), on_fail?: fun(msg: string): boolean|nil }
local function when_initialized(client, fn, hooks)
  if client.initialized then
    return fn(client)
  end
  if hooks and hooks.on_wait then
    hooks.on_wait(client)
  end
  local timer = assert(vim.uv.new_timer())
  local waited = 0
  M.waiting_start[client.id] = (M.waiting_start[client.id] or 0) + 1
  local function settled()
    timer:stop()
    timer:close()
    local n = (M.waiting_start[client.id] or 1) - 1
    M.waiting_start[client.id] = n > 0 and n or nil
  end
  -- Each tick is scheduled: while the main loop waits (a hit-enter prompt: "Client ragls quit with exit code 1")
  -- ticks pile up, and those after the one that settles the wait must do nothing (they closed the closed timer:
  -- "handle ... is already closing", a Lua error shown to the user, once per tick).
  timer:start(50, 50, vim.schedule_wrap(function()
    if timer:is_closing() then
      return
    end
    waited = waited + 50
    local c = vim.lsp.get_client_by_id(client.id)
    if c and c.initialized then
      settled()
      require("ragls.progress").redraw_statuslines()
      fn(c)
    elseif not c or waited >= config.values.start_timeout_ms then
      settled()
      fail(hooks,
        c and ("ragls: the server did not initialize within %d ms; %s"):format(config.values.start_timeout_ms,
          M.log_hint) or M.startup_failure(),
        vim.log.levels.ERROR
      )
    end
  end))
end

M.when_initialized = when_initialized -- (for tests)

--- Call `fn(client)` once the ragls client for the current buffer's project is initialized, starting it if
--- needed. Outside every project nothing starts: the reason is notified, with |:RagIndex| as the way to index
--- the folder anyway (a running client of another project is used instead, as nothing new is indexed then).
--- A missing server command is reported once per session (|vim.notify_once|).
--- `hooks.on_wait(client)`: called when `fn` must wait for the server to start (the answer float opens at once
--- then, saying so); `hooks.on_fail(msg)` returning true: the caller showed why `fn` will never run (no
--- notification then).
---@param fn fun(client: vim.lsp.Client)
---@param hooks? { on_wait?: fun(client: vim.lsp.Client), on_fail?: fun(msg: string): boolean|nil }
function M.with_client(fn, hooks)
  local rootmod = require("ragls.root")
  local bufnr = vim.api.nvim_get_current_buf()
  local root, why = rootmod.for_buffer(bufnr)
  local client = M.find_client(root)
  if client then
    return when_initialized(client, fn, hooks)
  end
  if not root then
    M.notify(("ragls: not started: %s. Run :RagIndex to index %s anyway, or add a ragls.toml to the project's root.")
      :format(why, vim.fn.fnamemodify(rootmod.default_folder(bufnr), ":~")), vim.log.levels.WARN)
    return
  end
  local ok, err = M.check_cmd()
  if not ok then
    vim.notify_once(err, vim.log.levels.ERROR, { title = "ragls" })
    return
  end
  local allowed, declined = rootmod.gate(root, function()
    local id = M.start(nil, root)
    local c = id and vim.lsp.get_client_by_id(id)
    if not c then
      fail(hooks, M.startup_failure(), vim.log.levels.ERROR)
      return
    end
    when_initialized(c, fn, hooks)
  end)
  if not allowed then
    M.notify("ragls: " .. declined, vim.log.levels.INFO)
  end
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

--- Cancel a request: Neovim calls no handler for it afterwards, so it no longer waits on the server (`M.on_exit`).
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
    return ("ragls: %s failed: %s; run the command again to restart it (%s)"):format(what, message, M.log_hint)
  end
  if err.code == -32602 or err.code == -32803 then
    return ("ragls: %s failed: %s"):format(what, message)
  end
  return ("ragls: %s failed (server error %s): %s; %s"):format(what, tostring(err.code), message, M.log_hint)
end

--- Send a request to the workspace's ragls server.
--- `on_result(result, client)` runs only on success; errors are reported with `vim.notify` (cancellation silently),
--- unless `opts.on_error(err)` returns true: it showed the error itself (the answer float says it; a notification
--- besides would repeat it, and one wider than the command line stops on a hit-enter prompt).
---@param method string  e.g. "rag/query"
---@param params table
---@param on_result fun(result: any, client: vim.lsp.Client)
--- `opts.error_text(err)` may return the text to notify instead of `M.error_text(method, err)` (nil: the default).
--- `opts.on_wait` / `opts.on_fail`: as |M.with_client|'s hooks, while the server starts.
---@param opts? { on_error?: fun(err: table): boolean|nil, on_sent?: fun(client: vim.lsp.Client, request_id: integer),
---               error_text?: fun(err: table): string|nil, on_wait?: fun(client: vim.lsp.Client),
---               on_fail?: fun(msg: string): boolean|nil }
function M.request(method, params, on_result, opts)
  opts = opts or {}
  M.with_client(function(client)
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
      M.notify("ragls: the server has shut down; run the command again to restart it (" .. M.log_hint .. ")",
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
