---@mod ragls.root Where the client may start: project roots, explicit folders, and the large-first-index question.
---
--- The client attaches only to buffers inside a project: the nearest directory holding one of `root_markers`
--- (`ragls.toml`, `.git` by default), a folder the user asked to index with |:RagIndex|, else the cwd for the
--- files below it (`root_fallback`, as LSP setups fall back to the cwd: `cd docs && nvim index.md`), unless the
--- cwd is the home directory or above it. A stray file outside all of these (`nvim ~/todo.txt` from ~) stays
--- detached and nothing is indexed; :Rag* commands then say why.
---
--- Before the first index of a folder the server is asked for a cheap estimate (`ragls estimate --json`: files,
--- chunks and embedding time, nothing indexed, no model loaded). When it is over `index_confirm_minutes` the user
--- is asked once (|vim.ui.select|); the answer holds for the session.

local config = require("ragls.config")

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

--- root -> "approved" | "declined" | "pending"
M.decisions = {}
--- root -> callbacks waiting for the decision
local waiting = {}
--- Folders indexed on explicit request (|:RagIndex|), absolute and normalized.
M.explicit = {}

---@param path string
---@return string
local function norm(path)
  return vim.fs.normalize(vim.uv.fs_realpath(path) or path)
end

---@param dir string
---@param path string
---@return boolean
local function contains(dir, path)
  return path == dir or path:sub(1, #dir + 1) == dir .. "/"
end

--- Markers of another user already warned about (path -> true): one warning per marker and session.
local foreign_warned = {}

--- Whether the root marker `path` may make its directory the project: the current user or root owns it, as the
--- server decides (`roots.own_marker`) and as git refuses a repository of "dubious ownership". A `ragls.toml`
--- another user planted in a shared parent (`/tmp/ragls.toml`) would otherwise make all of /tmp the project of
--- a clone below it. Warns once per marker; true where the platform has no user ids.
---@param path string
---@return boolean
local function own_marker(path)
  if not vim.uv.getuid then
    return true
  end
  local stat = vim.uv.fs_lstat(path)
  if not stat then
    return false
  end
  if stat.uid == vim.uv.getuid() or stat.uid == 0 then
    return true
  end
  if not foreign_warned[path] then
    foreign_warned[path] = true
    notify(("ragls: %s belongs to another user (uid %d), so %s is not taken for the project"):format(
      path, stat.uid, vim.fs.dirname(path)), vim.log.levels.WARN)
  end
  return false
end

--- The directory `source` (a buffer number or a path) starts the search from: the buffer's or path's
--- directory (itself when it is one), the cwd for a buffer without a name.
---@param source integer|string
---@return string
local function start_dir(source)
  local path = type(source) == "number" and vim.api.nvim_buf_get_name(source) or source
  if path == "" then
    return vim.fs.normalize(vim.uv.cwd())
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ":p"))
  return vim.fn.isdirectory(path) == 1 and path or vim.fs.dirname(path)
end

--- Nearest directory above `source` (a buffer number or a path) holding a root marker the user may take
--- (`own_marker`). Markers are tried one at a time, so ragls.toml wins over an enclosing .git.
---@param source integer|string
---@return string|nil
function M.find(source)
  local dir = start_dir(source)
  for _, marker in ipairs(config.values.root_markers) do
    for _, found in ipairs(vim.fs.find(marker, { upward = true, path = dir, limit = math.huge })) do
      if own_marker(found) then
        return norm(vim.fs.dirname(found))
      end
    end
  end
end

--- The explicit folder (|:RagIndex|) holding `path`, innermost first.
---@param path string
---@return string|nil
local function explicit_for(path)
  local best
  for dir in pairs(M.explicit) do
    if contains(dir, path) and (not best or #dir > #best) then
      best = dir
    end
  end
  return best
end

--- The cwd as the root of `path` (a file below it, or the cwd itself) when no marker names one: what
--- `root_fallback = "cwd"` means. Never the home directory or a directory above it (`/`, `/home`): a stray
--- `nvim ~/todo.txt` must not index the home folder (the server refuses it too).
---@param path string normalized
---@return string|nil
local function cwd_root(path)
  if config.values.root_fallback ~= "cwd" then
    return nil
  end
  local cwd = norm(vim.fn.getcwd())
  local home = vim.uv.os_homedir()
  if cwd == "/" or (home and contains(cwd, norm(home))) then
    return nil
  end
  return contains(cwd, path) and cwd or nil
end

--- Workspace root for a buffer: its project root (root markers), else an explicit folder holding it, else the
--- cwd when the file lies below it (`cwd_root`). For a buffer without a file (a scratch buffer, a help page) the
--- same search starts from the cwd.
---@param bufnr? integer
---@return string|nil root
---@return string|nil why  when nil: a sentence saying why there is no root
function M.for_buffer(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  local is_file = name ~= "" and vim.bo[bufnr].buftype == ""
  local where = is_file and norm(vim.fs.dirname(name)) or norm(vim.fn.getcwd())
  local path = is_file and norm(name) or where
  local root = M.find(is_file and bufnr or where) or explicit_for(path) or cwd_root(path)
  if root then
    return root, nil
  end
  local markers = table.concat(config.values.root_markers, ", ")
  local cwd = config.values.root_fallback == "cwd" and ", nor below a working directory other than ~" or ""
  return nil, ("%s is not inside a project (no %s above it%s)"):format(
    vim.fn.fnamemodify(is_file and name or where, ":~"), markers, cwd)
end

--- The folder |:RagIndex| indexes by default: the current file's directory, else the cwd.
---@param bufnr? integer
---@return string
function M.default_folder(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    return norm(vim.fs.dirname(name))
  end
  return norm(vim.fn.getcwd())
end

--- Mark `dir` as explicitly requested: buffers below it attach, and no question is asked.
---@param dir string
---@return string dir normalized
function M.add_explicit(dir)
  dir = norm(dir)
  M.explicit[dir] = true
  M.decide(dir, "approved")
  return dir
end

--- A ragls command derived from the server's `cmd`: its `serve` argument and what follows replaced by `args`
--- (`{ "ragls", "serve" }` and `{ "trust", "--show" }` give `{ "ragls", "trust", "--show" }`); nil when `cmd` has no
--- `serve` (an unknown launcher).
---@param args string[]
---@return string[]|nil
function M.ragls_cmd(args)
  local cmd = config.values.cmd
  for i, arg in ipairs(cmd) do
    if arg == "serve" then
      return vim.list_extend(vim.list_slice(cmd, 1, i - 1), args)
    end
  end
  return nil
end

--- The `ragls estimate --json <root>` command derived from `cmd` (|M.ragls_cmd|); nil when `cmd` has no `serve`
--- (an unknown launcher: no estimate, no question).
---@param root string
---@return string[]|nil
function M.estimate_cmd(root)
  local args = { "estimate", "--json" }
  if next(config.values.settings) ~= nil then
    vim.list_extend(args, { "--settings", vim.json.encode(config.values.settings) })
  end
  table.insert(args, root)
  return M.ragls_cmd(args)
end

--- "about 14 min" / "about 40 s".
---@param seconds number
---@return string
function M.human_duration(seconds)
  if seconds >= 5400 then
    return ("about %.1f h"):format(seconds / 3600)
  end
  if seconds >= 90 then
    return ("about %d min"):format(math.floor(seconds / 60 + 0.5))
  end
  return ("about %d s"):format(math.max(1, math.floor(seconds + 0.5)))
end

--- Record the decision for `root` and run (approved) or drop (declined) the callbacks waiting on it.
---@param root string
---@param decision "approved"|"declined"
function M.decide(root, decision)
  M.decisions[root] = decision
  local cbs = waiting[root] or {}
  waiting[root] = nil
  if decision == "approved" then
    for _, cb in ipairs(cbs) do
      cb()
    end
  end
end

--- The question before a large first index.
---@param root string
---@param est table  ragls estimate --json
function M.ask(root, est)
  -- `seconds` is a quiet-machine figure; `wallSeconds` (newer servers) the whole first index at the current load.
  local now = type(est.wallSeconds) == "number"
      and (" on a quiet machine, %s now with start-up"):format(M.human_duration(est.wallSeconds)) or ""
  local prompt = ("ragls: first index of %s: %d files, ~%d sections, %s to embed%s. Index it now?"):format(
    vim.fn.fnamemodify(root, ":~"), est.files or 0, est.chunks or 0, M.human_duration(est.seconds or 0), now)
  vim.ui.select({ "Index now", "Not now (:RagIndex indexes it later)" }, { prompt = prompt, kind = "ragls.confirm" },
    function(_, idx)
      M.decide(root, idx == 1 and "approved" or "declined")
      if idx ~= 1 then
        notify(("ragls: not indexing %s; run :RagIndex to index it"):format(vim.fn.fnamemodify(root, ":~")),
          vim.log.levels.INFO)
      end
    end)
end

--- Run `on_ok` once indexing `root` is allowed: at once when it was approved (or a client already serves it),
--- after the estimate (and, for a large first index, the user's answer) otherwise. Returns false with the reason
--- when the user declined it this session.
---@param root string
---@param on_ok fun()
---@return boolean allowed_or_pending
---@return string|nil why
function M.gate(root, on_ok)
  local decision = M.decisions[root]
  if decision == "approved" then
    on_ok()
    return true
  end
  if decision == "declined" then
    return false, ("indexing %s was declined this session; run :RagIndex to index it"):format(
      vim.fn.fnamemodify(root, ":~"))
  end
  waiting[root] = waiting[root] or {}
  table.insert(waiting[root], on_ok)
  if decision == "pending" then
    return true
  end
  M.decisions[root] = "pending"
  local minutes = config.values.index_confirm_minutes
  local cmd = minutes and minutes > 0 and M.estimate_cmd(root) or nil
  if not cmd or vim.fn.executable(cmd[1]) ~= 1 then
    M.decide(root, "approved")
    return true
  end
  local server = require("ragls.server")
  require("ragls.trust").prefetch(root) -- the trust question's answer, beside the estimate (not after it)
  local opts = { text = true, timeout = 30000, cwd = server.spawn_dir() } -- never the folder (|ragls-trust|)
  vim.system(server.spawn_cmd(cmd), opts, vim.schedule_wrap(function(res)
    local ok, est = pcall(vim.json.decode, res.stdout or "")
    if res.code ~= 0 or not ok or type(est) ~= "table" then
      -- An older server without `estimate`, or an unreadable folder: the server will say what is wrong.
      M.decide(root, "approved")
      return
    end
    M.last_estimate = est
    if not est.indexed and (est.seconds or 0) > minutes * 60 then
      M.ask(root, est)
    else
      M.decide(root, "approved")
    end
  end))
  return true
end

return M
