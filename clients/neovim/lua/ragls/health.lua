---@mod ragls.health :checkhealth ragls
---
--- Checks: Neovim version, the plugin configuration, the server command (found, version), and — when a ragls
--- client is running — the index status from `rag/status`.

local M = {}

local health = vim.health
local counted = require("ragls.text").counted

--- The last non-empty line of a command's error output: argparse's "error: …" line, a traceback's exception.
---@param text string|nil
---@return string|nil
local function last_line(text)
  local found
  for _, l in ipairs(vim.split(text or "", "\n")) do
    if vim.trim(l) ~= "" then
      found = vim.trim(l)
    end
  end
  return found
end

--- Run the server command's `--version`.
---@param cmd string[]
---@return string|nil version  its output, when it exited with 0 and printed something
---@return string|nil err      why not: the command line, exit code and the last line of its stderr
local function server_version(cmd)
  -- `ragls serve` → `ragls --version`; `python -m ragls serve` → `python -m ragls --version`.
  local argv = vim.deepcopy(cmd)
  if argv[#argv] == "serve" then
    table.remove(argv)
  end
  table.insert(argv, "--version")
  local shown = "`" .. table.concat(argv, " ") .. "`"
  local ok, obj = pcall(function()
    local server = require("ragls.server")
    return vim.system(server.spawn_cmd(argv), { text = true, cwd = server.spawn_dir() }):wait(15000)
  end)
  if not ok then
    return nil, ("%s could not be run: %s"):format(shown, last_line(tostring(obj)) or "?")
  end
  if obj.code ~= 0 then
    local why = last_line(obj.stderr) or last_line(obj.stdout)
    if obj.signal and obj.signal ~= 0 then
      return nil, ("%s was stopped (signal %d, after 15 s?)"):format(shown, obj.signal)
    end
    return nil, ("%s failed (exit %d)%s"):format(shown, obj.code, why and (": " .. why) or ", printing nothing")
  end
  local out = vim.trim((obj.stdout or "") .. (obj.stderr or ""))
  if out == "" then
    return nil, shown .. " printed nothing"
  end
  return out, nil
end

--- Names of `keymaps` in the order :help lists them.
local KEYMAP_ORDER = { "ask", "query", "status", "commit", "last" }

--- The keymaps of `setup()` for :checkhealth: none by default (telescope, fzf-lua and snacks map no keys either;
--- the user picks them), said as info with how to turn them on; the maps set, with a warning for each key that a
--- global mapping of another plugin also uses (ragls's buffer-local one hides it where ragls is attached).
---@param config table ragls.config
function M.check_keymaps(config)
  local maps = config.keymaps()
  if next(maps) == nil then
    local d = config.default_keymaps
    health.info(("keymaps: none (the default): `keymaps = true` in setup() maps %s ask, %s search, %s status, %s "
      .. "commit message, %s last answer where ragls is attached; or map the <Plug> mappings, :help ragls-mappings")
      :format(d.ask, d.query, d.status, d.commit, d.last))
    return
  end
  local set = {}
  for _, name in ipairs(KEYMAP_ORDER) do
    local lhs = maps[name]
    if lhs then
      table.insert(set, ("%s %s"):format(lhs, name))
      local mine = require("ragls").plug[name]
      for _, mode in ipairs(mine.modes) do
        for _, m in ipairs(vim.api.nvim_get_keymap(mode)) do
          if vim.keycode(m.lhs) == vim.keycode(lhs) then
            health.warn(("keymaps: %s (%s) is also mapped globally in mode %s to %s; ragls's map hides it in the "
              .. "buffers ragls attaches to"):format(lhs, name, mode, m.desc or m.rhs or "a Lua function"),
              { "pick another key in setup({ keymaps = { " .. name .. " = ... } })" })
          end
        end
      end
    end
  end
  health.ok("keymaps: " .. table.concat(set, ", "))
end

function M.check()
  local config = require("ragls.config")
  local rpc = require("ragls.rpc")
  local server = require("ragls.server")

  health.start("ragls: Neovim")
  if vim.fn.has("nvim-0.10") == 1 then
    local v = vim.version()
    health.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    health.error("Neovim 0.10 or newer is required")
  end

  health.start("ragls: configuration")
  local ok, err = config.check(config.values)
  if ok then
    health.ok("setup() options are valid")
  else
    health.error(err)
  end
  M.check_keymaps(config)

  health.start("ragls: server")
  local cmd = config.values.cmd
  local found, cmd_err = server.check_cmd()
  if not found then
    health.error(cmd_err, { server.install_hint })
  else
    health.ok(("server command found: %s (%s)"):format(table.concat(cmd, " "), vim.fn.exepath(cmd[1])))
    local version, version_err = server_version(cmd)
    if version then
      health.ok("server version: " .. version)
    else
      health.warn(version_err, { "check `cmd` in setup(); the server is started as: " .. table.concat(cmd, " ") })
    end
  end

  local root, why = rpc.root_dir(0)
  local client = server.find_client(root) or server.find_client(nil)
  if not client then
    if root then
      health.info(("no ragls client running (workspace root would be %s); open a file or run :RagStatus"):format(root))
    else
      health.info(("no ragls client running: %s; :RagIndex indexes a folder anyway"):format(why))
    end
    return
  end
  if client.server_info and client.server_info.version then
    health.ok(("client %d attached to %s %s"):format(client.id, client.server_info.name or "ragls",
      client.server_info.version))
  else
    health.ok(("client %d running for %s"):format(client.id, client.root_dir or root))
  end
  if not client.initialized then
    health.warn("the server is still initializing")
    return
  end
  local resp
  if vim.fn.has("nvim-0.11") == 1 then
    resp = client:request_sync("rag/status", vim.empty_dict(), 10000, 0)
  else
    resp = client.request_sync("rag/status", vim.empty_dict(), 10000, 0)
  end
  if not resp then
    health.error("rag/status did not answer within 10 s")
    return
  end
  if resp.err then
    health.error(rpc.error_text("rag/status", resp.err))
    return
  end
  local status = resp.result
  health.start("ragls: index")
  local gen = status.generation or {}
  local status_view = require("ragls.status_view")
  local backend = ("generation backend: %s%s"):format(tostring(gen.backend),
    (gen.model and gen.model ~= vim.NIL) and (" (" .. gen.model .. ")") or "")
  -- an untrusted ragls.toml is said once: its warning below names every ignored setting and how to trust it
  local trust_warnings, errors = status_view.split_errors(status)
  local ignored = status_view.ignored_llm(status)
  if ignored and #trust_warnings > 0 then
    health.info(backend .. ": " .. status_view.IGNORED_LLM_NOTE)
  elseif ignored then
    health.warn(backend .. ": " .. ignored)
  else
    health.ok(backend)
  end
  for _, e in ipairs(trust_warnings) do
    health.warn(status_view.error_line(e))
  end
  local by_folder, others, notes_by_folder = status_view.split_notices(status)
  local label = status_view.embedding_label(status)
  if status.embeddingSource == "offline-fallback" then
    health.warn("embedding model: " .. label, {
      "the configured model could not be loaded (not cached, no network): connect once so it downloads, or set "
        .. "embedding.model_path; the index is built with the fallback until then",
    })
  else
    health.ok("embedding model: " .. label)
  end
  for _, folder in ipairs(status.folders or {}) do
    local where = vim.uri_to_fname(folder.uri)
    local notices = by_folder[where] or {}
    if (folder.files or 0) > 0 then
      health.ok(("%s: %s, %s"):format(where, counted(folder.files, "file"), counted(folder.chunks or 0, "section")))
    elseif (folder.pending or 0) > 0 then
      health.info(("%s: indexing, %d files pending"):format(where, folder.pending))
    elseif #notices == 0 then -- the server's notice says why and what to set, when it knows
      health.warn(("%s: no files indexed"):format(where),
        { "check [sources] include/exclude in ragls.toml; :RagStatus lists skipped files" })
    end
    for _, notice in ipairs(notices) do
      health.warn(("%s: %s"):format(where, notice))
    end
    for _, notice in ipairs(notes_by_folder[where] or {}) do
      health.info(("%s: %s"):format(where, notice))
    end
    if folder.embeddingLoading == true then
      health.info(("%s: embedding %s"):format(where, require("ragls.status_view").vectors_phrase(folder)))
    end
    if folder.writer == false then
      health.warn(("%s: index is read-only (another process holds the lock)"):format(where))
    end
    local skipped = #(folder.skipped or {}) + (type(folder.skippedMore) == "number" and folder.skippedMore or 0)
    if skipped > 0 then
      health.info(("%s: %d skipped files (see :RagStatus)"):format(where, skipped))
    end
  end
  for _, e in ipairs(errors) do
    health.error(status_view.error_line(e))
  end
  for _, notice in ipairs(others) do -- nothing to act on, or a setting's old name that still works
    health.info(notice)
  end
end

return M
