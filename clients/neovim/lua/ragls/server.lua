---@mod ragls.server The ragls server process: its start, lookup, wait for `initialize`, and exit.
---
--- |M.start| starts (or reuses) the `ragls` client of a workspace root; |M.with_client| finds or starts the one of
--- the current buffer and waits until it is initialized. A server that stops on its own is reported once
--- (|M.on_exit|, |ragls-server-exit|) and remembered until another starts for its root (|M.exited|). Requests to
--- it go through |ragls.rpc|.

local config = require("ragls.config")
local trust = require("ragls.trust")

local M = {}

M.name = "ragls"

local has_011 = vim.fn.has("nvim-0.11") == 1

---@param msg string
---@param level? integer
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

--- root -> { how = "exit code 1" | "killed by signal 9", buffers = { [bufnr] = true } }: a server that stopped
--- on its own (a crash, a kill; not a clean shutdown), until another starts for that root (|M.start|: a :Rag*
--- command, or a file opened below the root), which attaches those buffers again. The statusline says
--- "ragls: stopped (…)" for them meanwhile.
M.exited = {}

--- Install instructions shown when the server command is missing.
M.install_hint = "Install the server from a ragls checkout with `python3 -m pip install '/path/to/ragls[offline]'` "
  .. "(or `pip install -e .` inside it), or point the plugin at it: "
  .. "require('ragls').setup({ cmd = { '/path/to/venv/bin/ragls', 'serve' } })"

--- The `vim.lsp.ClientConfig` for a root dir.
---@param root string
---@return table
function M.client_config(root)
  local cfg = config.values
  local init = vim.deepcopy(cfg.settings or {})
  local trusted, digest = trust.workspace_trusted(root)
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
    handlers = { ["$/progress"] = require("ragls.rpc").progress_handler,
      ["window/showMessage"] = require("ragls.rpc").show_message_handler },
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

--- The directory a ragls process this plugin starts runs in (the server, its `estimate`, its `--version`): ragls
--- under Neovim's cache dir (|stdpath()| "cache"), created when missing; never the project or |:pwd|. A folder is
--- untrusted input: `python -m ragls` imports from its working directory first, so a `ragls/` package at a cloned
--- folder's root ran instead of ragls when Neovim's current directory was that folder. The folder still reaches the
--- server as its root dir (LSP rootUri, workspace folders) or as the command's argument.
---@return string
function M.spawn_dir()
  local dir = vim.fs.joinpath(vim.fn.stdpath("cache"), "ragls")
  vim.fn.mkdir(dir, "p", tonumber("700", 8))
  return dir
end

--- `command` (a list, e.g. `{ "ragls", "serve" }`) with its program as an absolute path when Neovim finds it
--- (|exepath()|): a relative one (`.venv/bin/ragls`) names the same program from |M.spawn_dir|.
---@param command string[]
---@return string[]
function M.spawn_cmd(command)
  local out = vim.deepcopy(command)
  local exe = vim.fn.exepath(out[1])
  if exe ~= "" then
    out[1] = exe
  end
  return out
end

--- The `cmd` of the ragls client's config (|vim.lsp.ClientConfig| takes a function there): starts `command` with
--- |vim.lsp.rpc.start()| as vim.lsp does a `cmd` list, and reports the exit of a server whose stop ragls explains
--- itself (|M.on_exit|: the Python exception a failed start printed, "killed by signal 9", "run any :Rag* command to
--- restart it") to vim.lsp as a clean one (exit code 0, no signal). vim.lsp uses that code only for its own notice,
--- "Client ragls quit with exit code 1 and signal 0. Check log for errors: <path>", which came as a second message
--- for the one failure; |M.on_exit| gets the real code and signal. Every other exit reaches vim.lsp as it was.
--- The server starts in |M.spawn_dir| (the config's `cmd_cwd` when one is set), never in Neovim's current directory.
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
    rpc_client = vim.lsp.rpc.start(M.spawn_cmd(command), ours,
      { cwd = cfg.cmd_cwd or M.spawn_dir(), env = cfg.cmd_env, detached = cfg.detached })
    return rpc_client
  end
end

--- `on_exit` of the ragls client (also in `lsp/ragls.lua`): every request still waiting on that server fails with
--- `err.code` `SERVER_EXITED` and a message saying how it stopped (|ragls.rpc.fail_pending|), so an answer float or
--- a chat turn streaming when the server crashed (or was killed) says so instead of waiting forever; its indexing
--- progress is forgotten (the statusline said "indexing 40%" for good). A crash (|explains_exit|) is said once: by
--- the request or command that waited, else by a notification (vim.lsp's own notice is left out, |M.server_cmd|).
--- Runs scheduled (the exit callback comes from libuv).
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
    local how = (signal or 0) ~= 0 and ("killed by signal %d"):format(signal) or ("exit code %d"):format(code or 0)
    local failed = require("ragls.rpc").fail_pending(client_id,
      ("the server stopped (%s) before it answered"):format(how))
    -- (SIGTERM is how Neovim stops a server that did not exit when asked, `client:stop(true)`: no crash, as vim.lsp
    -- has it; it said "the server stopped (killed by signal 15); run any :Rag* command to restart it")
    if not explained then
      return -- a clean shutdown (:lua vim.lsp.stop_client, quitting Neovim), or another server serves the root
    end
    M.exited[root] = { how = how, buffers = buffers }
    require("ragls.progress").redraw_statuslines()
    -- (a request it failed has said so already; so does a command waiting for it to start, |when_initialized|)
    if not failed and not (never_initialized and M.waiting_start[client_id]) then
      -- one that stopped before it answered `initialize` says why when it printed a Python exception
      local why = never_initialized and M.startup_error()
      notify(why and M.startup_failure() or M.stopped_notice(how), vim.log.levels.WARN)
    end
  end)
end

--- The notice of a server that stopped on its own (`how`: "killed by signal 9", "exit code 1"): the longest of its
--- wordings that fits the cmdline (|v:echospace|), as Neovim's own vim.notify echoes it there and a longer one
--- waits for Enter over whatever you were typing; the shortest when none fits.
---@param how string
---@return string
function M.stopped_notice(how)
  local wordings = {
    ("ragls: the server stopped (%s); run any :Rag* command to restart it (%s)"):format(how, M.log_hint),
    ("ragls: the server stopped (%s); run any :Rag* command to restart it (see :checkhealth ragls)"):format(how),
    ("ragls: the server stopped (%s); run any :Rag* command to restart it"):format(how),
    ("ragls: the server stopped (%s); any :Rag* command restarts it"):format(how),
    ("ragls: server stopped (%s); :Rag* restarts it"):format(how),
  }
  -- (longest_fitting leaves room for a float's border: 4 columns)
  return require("ragls.text").longest_fitting(wordings, vim.v.echospace + 4) or wordings[#wordings]
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
    notify(msg, level)
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
--- then, saying so); `hooks.on_fail(msg)`: `fn` will never run (outside every project, a missing server command, a
--- start declined or failed) and `msg` says why; returning true, the caller showed it (no notification then).
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
    fail(hooks, ("ragls: not started: %s. Run :RagIndex to index %s anyway, or add a ragls.toml to the project's "
      .. "root."):format(why, vim.fn.fnamemodify(rootmod.default_folder(bufnr), ":~")), vim.log.levels.WARN)
    return
  end
  local ok, err = M.check_cmd()
  if not ok then
    if not (hooks and hooks.on_fail and hooks.on_fail(err) == true) then
      vim.notify_once(err, vim.log.levels.ERROR, { title = "ragls" })
    end
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
    fail(hooks, "ragls: " .. declined, vim.log.levels.INFO)
  end
end

return M
