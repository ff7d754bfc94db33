---@mod ragls.config Defaults and validation for |ragls-setup|.
---
--- `setup(opts)` stores the merged table here; nothing else reads user options directly.
--- Validation returns `ok, err` (never throws) so that callers can report a clear message.

local M = {}

---@class ragls.Keymaps
---@field ask? string|false      normal and visual mode: |:RagAsk|
---@field query? string|false    normal mode: prompt, then |:RagQuery|
---@field status? string|false   normal mode: |:RagStatus|
---@field commit? string|false   normal mode: |:RagCommit|
---@field last? string|false     normal mode: |:RagLast|

---@class ragls.Config
---@field cmd string[]                Server command; default `{ "ragls", "serve" }`.
---@field root_markers string[]      Files/dirs that mark a workspace root; default `{ "ragls.toml", ".git" }`.
---@field root_fallback "cwd"|false  Without a root marker: the cwd is the root of the files below it (default "cwd"),
---                                  unless the cwd is the home directory or above it; false: such a buffer stays
---                                  detached (nothing indexed) unless |:RagIndex| is used.
---@field settings table             ragls settings (see docs/configuration.md); sent as initializationOptions and
---                                  as `workspace/didChangeConfiguration` section `ragls`.
---@field autostart boolean          Attach to every file buffer (default true). When false, the client starts on the
---                                  first :Rag* command.
---@field filetypes string[]|nil     Only attach to these filetypes (nil: all file buffers).
---@field keymaps ragls.Keymaps|boolean  `true`: the default maps below; `false`: none (default); a table: your maps.
---@field top_k integer|nil          `topK` for :RagAsk and :RagChat (nil: the server's setting).
---@field search_top_k integer       `topK` of :RagQuery's picker and quickfix list (default 20: a list to scan).
---@field start_timeout_ms integer   How long a :Rag* command waits for the server to initialize (default 30000).
---@field float table                Float window options: `width`, `height` (a fraction of the editor in (0, 1], or
---                                  whole columns/lines), `border` (a name from `border_styles` or a border list).
---@field commit_style string|nil    `"conventional"` or `"plain"` (nil: the server's `commit.style`).
---@field index_confirm_minutes number|false  Ask before a first index estimated longer than this (default 10);
---                                  false or 0: never ask.
---@field progress boolean           Show indexing progress through |vim.notify| / the cmdline (default true).
---@field picker string              :RagQuery picker: "auto" (telescope, snacks, fzf-lua, else vim.ui.select),
---                                  "telescope", "snacks", "fzf-lua" or "select".
---@field highlight_ms integer       How long the cited lines stay highlighted after a jump (default 3000; 0: until
---                                  the next jump).
---@field chat table                 |:RagChat| options: `layout` = "vsplit" (default), "split" or "float"; `width`
---                                  (vsplit) / `height` (split): a fraction in (0, 1] of the editor or a number of
---                                  columns / lines (nil: half, as |:vsplit| / |:split| make it).

---@type ragls.Config
M.defaults = {
  cmd = { "ragls", "serve" },
  root_markers = { "ragls.toml", ".git" },
  root_fallback = "cwd",
  settings = {},
  autostart = true,
  filetypes = nil,
  keymaps = false,
  top_k = nil,
  search_top_k = 20,
  start_timeout_ms = 30000,
  float = { width = 0.8, height = 0.7, border = "rounded" },
  commit_style = nil,
  index_confirm_minutes = 10,
  progress = true,
  picker = "auto",
  highlight_ms = 3000,
  chat = { layout = "vsplit" },
}

M.default_keymaps = {
  ask = "<leader>ra",
  query = "<leader>rq",
  status = "<leader>rs",
  commit = "<leader>rc",
  last = "<leader>rl",
}

---@type ragls.Config
M.values = vim.deepcopy(M.defaults)

local function is_string_list(v)
  if type(v) ~= "table" or #v == 0 then
    return false
  end
  for _, item in ipairs(v) do
    if type(item) ~= "string" then
      return false
    end
  end
  return true
end

-- Every top-level option (the ones whose default is nil are listed too).
local known_list = "cmd, root_markers, root_fallback, settings, autostart, filetypes, keymaps, top_k, search_top_k, "
  .. "start_timeout_ms, float, commit_style, index_confirm_minutes, progress, picker, highlight_ms, chat"
local known_keys = {}
for key in known_list:gmatch("[%w_]+") do
  known_keys[key] = true
end

--- Border names `nvim_open_win` accepts.
M.border_styles = { "none", "single", "double", "rounded", "solid", "shadow" }
if vim.fn.has("nvim-0.11") == 1 then
  table.insert(M.border_styles, "bold")
end

--- A border list as `nvim_open_win` takes it: 1, 2, 4 or 8 items, each a one-cell string or { char, hl_group? }.
local function is_border_list(v)
  if type(v) ~= "table" or not vim.tbl_contains({ 1, 2, 4, 8 }, #v) then
    return false
  end
  for _, item in ipairs(v) do
    local ch = type(item) == "table" and item[1] or item
    if type(ch) ~= "string" or vim.fn.strdisplaywidth(ch) > 1 then
      return false
    end
    if type(item) == "table" and item[2] ~= nil and type(item[2]) ~= "string" then
      return false
    end
  end
  return true
end

--- A float size: a fraction of the editor in (0, 1], or a positive whole number of columns/lines.
local function is_size(v)
  return type(v) == "number" and v > 0 and (v <= 1 or v % 1 == 0)
end

---@param float table
---@return boolean ok
---@return string|nil err
local function check_float(float)
  for key in pairs(float) do
    if key ~= "width" and key ~= "height" and key ~= "border" then
      return false, ("ragls: unknown option `float.%s` (known: width, height, border)"):format(tostring(key))
    end
  end
  for _, key in ipairs({ "width", "height" }) do
    if float[key] ~= nil and not is_size(float[key]) then
      return false, ("ragls: `float.%s` must be a fraction of the editor in (0, 1] or a whole number of %s, not %s")
        :format(key, key == "width" and "columns" or "lines", vim.inspect(float[key]))
    end
  end
  local border = float.border
  if border ~= nil and not (type(border) == "string" and vim.tbl_contains(M.border_styles, border))
    and not is_border_list(border) then
    return false, ("ragls: `float.border` must be one of %s or a list of 1, 2, 4 or 8 one-cell border characters, "
      .. "not %s"):format(table.concat(M.border_styles, ", "), vim.inspect(border))
  end
  return true, nil
end

--- Check a (merged) config table.
---@param cfg table
---@return boolean ok
---@return string|nil err  names the offending field, e.g. "ragls: `cmd` must be a non-empty list of strings"
function M.check(cfg)
  for key in pairs(cfg) do
    if not known_keys[key] then
      return false, ("ragls: unknown option `%s` (known: %s)"):format(tostring(key), known_list)
    end
  end
  if not is_string_list(cfg.cmd) then
    return false, "ragls: `cmd` must be a non-empty list of strings, e.g. { 'ragls', 'serve' }"
  end
  if not is_string_list(cfg.root_markers) then
    return false, "ragls: `root_markers` must be a non-empty list of strings"
  end
  if cfg.root_fallback ~= "cwd" and cfg.root_fallback ~= false then
    return false, "ragls: `root_fallback` must be 'cwd' or false"
  end
  if type(cfg.settings) ~= "table" then
    return false, "ragls: `settings` must be a table"
  end
  if type(cfg.autostart) ~= "boolean" then
    return false, "ragls: `autostart` must be true or false"
  end
  if cfg.filetypes ~= nil and not is_string_list(cfg.filetypes) then
    return false, "ragls: `filetypes` must be nil or a list of filetype names"
  end
  if type(cfg.keymaps) ~= "boolean" and type(cfg.keymaps) ~= "table" then
    return false, "ragls: `keymaps` must be true, false or a table { ask = '<leader>ra', ... }"
  end
  if type(cfg.keymaps) == "table" then
    for name, lhs in pairs(cfg.keymaps) do
      if M.default_keymaps[name] == nil then
        return false, ("ragls: unknown keymap `%s` (known: ask, query, status, commit, last)"):format(tostring(name))
      end
      if lhs ~= false and type(lhs) ~= "string" then
        return false, ("ragls: keymap `%s` must be a string or false"):format(name)
      end
    end
  end
  if cfg.top_k ~= nil and (type(cfg.top_k) ~= "number" or cfg.top_k < 1 or cfg.top_k % 1 ~= 0) then
    return false, "ragls: `top_k` must be a positive integer or nil"
  end
  local search = cfg.search_top_k
  if type(search) ~= "number" or search < 1 or search > 200 or search % 1 ~= 0 then
    return false, "ragls: `search_top_k` must be a whole number from 1 to 200 (default 20)"
  end
  if type(cfg.start_timeout_ms) ~= "number" or cfg.start_timeout_ms <= 0 then
    return false, "ragls: `start_timeout_ms` must be a positive number"
  end
  if type(cfg.float) ~= "table" then
    return false, "ragls: `float` must be a table { width = 0.8, height = 0.7, border = 'rounded' }"
  end
  local float_ok, float_err = check_float(cfg.float)
  if not float_ok then
    return false, float_err
  end
  if cfg.commit_style ~= nil and cfg.commit_style ~= "conventional" and cfg.commit_style ~= "plain" then
    return false, "ragls: `commit_style` must be 'conventional', 'plain' or nil"
  end
  local icm = cfg.index_confirm_minutes
  if icm ~= false and (type(icm) ~= "number" or icm < 0) then
    return false, "ragls: `index_confirm_minutes` must be a number of minutes (0 or false: never ask)"
  end
  if type(cfg.progress) ~= "boolean" then
    return false, "ragls: `progress` must be true or false"
  end
  local pickers = { "auto", "telescope", "snacks", "fzf-lua", "select" }
  if not vim.tbl_contains(pickers, cfg.picker) then
    return false, "ragls: `picker` must be one of " .. table.concat(pickers, ", ")
  end
  if type(cfg.highlight_ms) ~= "number" or cfg.highlight_ms < 0 then
    return false, "ragls: `highlight_ms` must be a number of milliseconds (0: until the next jump)"
  end
  if type(cfg.chat) ~= "table" then
    return false, "ragls: `chat` must be a table { layout = 'vsplit' | 'split' | 'float' }"
  end
  for key in pairs(cfg.chat) do
    if key ~= "layout" and key ~= "width" and key ~= "height" then
      return false, ("ragls: unknown option `chat.%s` (known: layout, width, height)"):format(tostring(key))
    end
  end
  if not vim.tbl_contains({ "vsplit", "split", "float" }, cfg.chat.layout) then
    return false, ("ragls: `chat.layout` must be 'vsplit', 'split' or 'float', not %s"):format(vim.inspect(cfg.chat.layout))
  end
  for _, key in ipairs({ "width", "height" }) do
    local v = cfg.chat[key]
    if v ~= nil and (type(v) ~= "number" or v <= 0 or (v > 1 and v ~= math.floor(v))) then
      return false, ("ragls: `chat.%s` must be a fraction in (0, 1] of the editor or a whole number of %s, not %s")
        :format(key, key == "width" and "columns" or "lines", vim.inspect(v))
    end
  end
  return true, nil
end

--- Merge `opts` over the defaults, validate, and store the result in `M.values`.
--- On an invalid table the previous values are kept.
---@param opts table|nil
---@return boolean ok
---@return string|nil err
function M.set(opts)
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists replace, they are not merged index by index.
  for _, key in ipairs({ "cmd", "root_markers", "filetypes" }) do
    if opts and opts[key] ~= nil then
      merged[key] = opts[key]
    end
  end
  local ok, err = M.check(merged)
  if not ok then
    return false, err
  end
  M.values = merged
  return true, nil
end

--- The keymaps in effect: name -> lhs (only enabled ones).
---@return table<string, string>
function M.keymaps()
  local km = M.values.keymaps
  if km == false then
    return {}
  end
  local out = {}
  local base = km == true and M.default_keymaps or vim.tbl_extend("force", M.default_keymaps, km)
  for name, lhs in pairs(base) do
    if type(lhs) == "string" and (km == true or (type(km) == "table" and km[name] ~= nil)) then
      out[name] = lhs
    end
  end
  return out
end

return M
