---@mod ragls.trust Folder trust: asking about a workspace's ragls.toml the |exrc| way.
---
--- A workspace's own ragls.toml only tunes retrieval until it is trusted: |vim.secure.read()| asks once per version
--- of the file, and the server is told the hash of the version allowed (at start, |ragls.server.client_config|, and
--- after the file is saved, |M.retrust|).

local config = require("ragls.config")

local M = {}

local has_011 = vim.fn.has("nvim-0.11") == 1

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

--- The `ragls trust --show --json <root>` command derived from the server's `cmd`; nil without `serve` in it or
--- when its program is not executable.
---@param root string
---@return string[]|nil
local function show_cmd(root)
  local cmd = require("ragls.root").ragls_cmd({ "trust", "--show", "--json", root })
  if not cmd or vim.fn.executable(cmd[1]) ~= 1 then
    return nil
  end
  return cmd
end

--- The version of a file as |M.prefetch| and |M.what_allowing_changes| compare it: "<size>:<mtime>"; nil when gone.
---@param path string
---@return string|nil
local function file_stamp(path)
  local st = vim.uv.fs_stat(path)
  return st and ("%d:%d.%d"):format(st.size, st.mtime.sec, st.mtime.nsec) or nil
end

--- root -> { job = vim.SystemObj, stamp = file_stamp } of a `ragls trust --show` started ahead (|M.prefetch|).
local ahead = {}

--- Start asking ragls what allowing `root`'s ragls.toml would change (|M.what_allowing_changes|) without waiting
--- for the answer: |ragls.root.gate| calls it beside its `ragls estimate`, so the question (asked when the server
--- starts, |M.workspace_trusted|) finds the answer ready instead of holding Neovim while Python starts (~0.5 s
--- quiet, seconds on a busy machine: break68's and clients68's lead). Only when Neovim would ask (a UI, a readable
--- file Neovim's trust database has no word on); the answer is used for that version of the file only.
---@param root string
function M.prefetch(root)
  local path = root .. "/ragls.toml"
  if (ahead[root] and ahead[root].stamp == file_stamp(path)) or vim.fn.filereadable(path) == 0
    or #vim.api.nvim_list_uis() == 0 or not M.trust_will_ask(path) then
    return
  end
  local cmd = show_cmd(root)
  if not cmd then
    return
  end
  local server = require("ragls.server")
  local ok, job = pcall(vim.system, server.spawn_cmd(cmd), { text = true, cwd = server.spawn_dir() })
  if ok then
    ahead[root] = { job = job, stamp = file_stamp(path) }
  end
end

--- What allowing `root`'s ragls.toml would change, as ragls says it (`ragls trust --show --json`, run from the
--- server's `cmd`): `{ state = "trusted"|"changed"|"untrusted", settings = { 'generation.base_url = "http://…"', … } }`
--- (values as JSON, secrets masked; no setting: the file only tunes retrieval). nil when ragls cannot say (a `cmd`
--- without `serve`, an older ragls without `--show`, 10 s without an answer). Takes the answer |M.prefetch| started
--- for this version of the file; else runs it while Neovim waits: only before the question, once per version of
--- the file.
---@param root string
---@return { state: string, settings: string[] }|nil
function M.what_allowing_changes(root)
  local started = ahead[root]
  ahead[root] = nil
  local ok, res
  if started and started.stamp ~= nil and started.stamp == file_stamp(root .. "/ragls.toml") then
    ok, res = pcall(function()
      return started.job:wait(10000)
    end)
  else
    local cmd = show_cmd(root)
    if not cmd then
      return nil
    end
    local server = require("ragls.server")
    ok, res = pcall(function()
      return vim.system(server.spawn_cmd(cmd), { text = true, cwd = server.spawn_dir() }):wait(10000)
    end)
  end
  if not (ok and res.code == 0) then
    return nil
  end
  local decoded, out = pcall(vim.json.decode, res.stdout or "")
  if not (decoded and type(out) == "table" and type(out.settings) == "table" and type(out.state) == "string") then
    return nil
  end
  return out
end

--- Most settings listed above the trust question (|M.workspace_trusted|); the others are counted.
M.MAX_SETTINGS_SHOWN = 8

--- Show above Neovim's trust question what allowing the file lets it set, one setting a line (Neovim 0.11+: with
--- 'messagesopt' "wait:0" the lines stay above the question instead of stopping on a hit-enter prompt first; the
--- returned function sets the option back, after the answer). Without the settings (ragls could not say) or
--- 'messagesopt' (0.10), the longest of |M.trust_context| that fits the command line; with none (a file that only
--- tunes retrieval, asked about by |:RagTrust|), that allowing it changes nothing.
---@param path string the ragls.toml
---@param settings string[]|nil
---@return fun()|nil restore
local function say_what_allowing_does(path, settings)
  if settings and #settings > 0 and vim.fn.exists("+messagesopt") == 1 then
    local shown = math.max(1, math.min(M.MAX_SETTINGS_SHOWN, vim.o.lines - 5, #settings))
    local lines = { ("ragls: allowing %s lets it set (otherwise it only tunes retrieval):")
      :format(vim.fn.fnamemodify(path, ":~")) }
    for i = 1, shown do
      table.insert(lines, "  " .. vim.fn.strcharpart(settings[i], 0, vim.o.columns - 3))
    end
    if #settings > shown then
      table.insert(lines, ("  … and %d more: (v)iew shows the file"):format(#settings - shown))
    end
    local messagesopt = vim.o.messagesopt
    vim.o.messagesopt = "wait:0,history:" .. (vim.o.messagesopt:match("history:(%d+)") or "500")
    vim.api.nvim_echo({ { table.concat(lines, "\n"), "WarningMsg" } }, true, {})
    return function()
      vim.o.messagesopt = messagesopt
    end
  end
  -- vim.secure.read's own question names only the file: say what allowing it changes first.
  local wordings = settings and #settings == 0 -- (|:RagTrust| asks also then)
      and { "ragls: it only tunes retrieval: allowing it changes nothing", "ragls: allowing changes nothing" }
    or M.trust_context
  local text = require("ragls.text").longest_fitting(wordings, vim.v.echospace + 4) -- no hit-enter
  if text then
    vim.api.nvim_echo({ { text, "WarningMsg" } }, true, {})
  end
end

--- Folder trust, the |exrc| way: when `root` has a ragls.toml and a UI is attached, |vim.secure.read()| asks
--- once per version of the file ("allow" is remembered in Neovim's trust database; an edited file asks again),
--- after the settings allowing it would let it set, one a line (|M.what_allowing_changes|). Nothing is asked when
--- ragls says the file only tunes retrieval or the user's trust store (`ragls trust`) already trusts this version
--- (unless `opts.ask`: |:RagTrust|). true when allowed, with the SHA-256 of the version the user allowed
--- ("sha256:<hex>"): the server applies all of that file, and only of that version (an edit between the answer and
--- the server's start is not trusted). nil otherwise (no file, headless, nothing asked, ignored or denied): the
--- user's ragls trust store decides, and untrusted the file only tunes retrieval.
---@param root string
---@param opts? { ask?: boolean } ask even when allowing changes nothing
---@return boolean|nil trusted
---@return string|nil digest "sha256:<hex>" of the allowed ragls.toml
function M.workspace_trusted(root, opts)
  local path = root .. "/ragls.toml"
  if vim.fn.filereadable(path) == 0 or not (vim.secure and vim.secure.read) or #vim.api.nvim_list_uis() == 0 then
    return nil
  end
  local restore
  if M.trust_will_ask(path) then
    local changes = M.what_allowing_changes(root)
    if changes and not (opts and opts.ask) and (#changes.settings == 0 or changes.state == "trusted") then
      return nil -- nothing to decide: all of it applies untrusted, or `ragls trust` trusted this version
    end
    restore = say_what_allowing_does(path, changes and changes.settings)
  end
  local ok, content = pcall(vim.secure.read, path)
  if restore then
    restore()
  end
  if not (ok and content ~= nil) then
    return nil
  end
  return true, "sha256:" .. vim.fn.sha256(content)
end

--- Tell `client`'s server that `root`'s ragls.toml of hash `digest` ("sha256:<hex>") is trusted: `workspaceTrusted`
--- and `workspaceTrustedConfigs` in a `workspace/didChangeConfiguration` with the client's settings.
---@param client vim.lsp.Client
---@param root string
---@param digest string
local function tell_server(client, root, digest)
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
  local client = require("ragls.server").find_client(root)
  if not client then
    return
  end
  local trusted, digest = M.workspace_trusted(root)
  if trusted then
    tell_server(client, root, digest)
  end
end

--- |:RagTrust|: ask |vim.secure.read()| about `root`'s ragls.toml again, also when you ignored or denied it before
--- (you ran the command: Neovim's trust database forgets its "deny" first), and, allowed, tell the running server
--- (as |M.retrust|): its LLM, key and loader settings apply at once, no restart. Says how it went with |vim.notify|.
---@param root string|nil the project's root (nil: the buffer has none; `why` says why)
---@param why? string
---@return boolean trusted
function M.trust_root(root, why)
  local notify = require("ragls.rpc").notify
  local path = root and vim.fs.joinpath(root, "ragls.toml")
  if not path or vim.fn.filereadable(path) == 0 then
    notify(root and ("ragls: %s has no ragls.toml: nothing to trust"):format(root)
      or ("ragls: no project here (%s)"):format(why or "no root"), vim.log.levels.WARN)
    return false
  end
  if #vim.api.nvim_list_uis() == 0 then
    notify("ragls: :RagTrust asks you about the file, and there is no UI to ask in; run `ragls trust "
      .. root .. "` in a shell", vim.log.levels.WARN)
    return false
  end
  pcall(vim.secure.trust, { action = "remove", path = path }) -- a "deny" would keep vim.secure.read from asking
  local trusted, digest = M.workspace_trusted(root, { ask = true })
  vim.cmd.redraw() -- the question's lines off the cmdline: the line below would wait for Enter under them
  local shown = vim.fn.fnamemodify(path, ":~")
  if not trusted then
    notify(("ragls: %s not allowed: it only tunes retrieval"):format(shown), vim.log.levels.WARN)
    return false
  end
  local client = require("ragls.server").find_client(vim.fs.normalize(root))
  if client then
    tell_server(client, vim.fs.normalize(root), digest)
  end
  notify(("ragls: %s allowed: all its settings apply%s"):format(shown, client and " now" or ""))
  return true
end

return M
