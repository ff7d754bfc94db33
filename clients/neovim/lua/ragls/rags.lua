-- ragls: named RAGs (knowledge bases) for :RagAsk / :RagQuery (`rag=NAME`, `rag=a,b`) and :RagUse.
-- The choice made with :RagUse applies to later questions of this Neovim session until changed.
local rpc = require("ragls.rpc")
local counted = require("ragls.text").counted

local M = {}

---@type string[]|nil names chosen with :RagUse (nil: the server's default, "workspace")
M.selected = nil
---@type string[] names seen in the last rag/list (for completion)
M.known = {}

--- Split `rag=NAME[,NAME…]` tokens out of command arguments.
---@param args string
---@return string[]|nil rag, string rest
function M.split_args(args)
  local rag, rest = nil, {}
  for _, word in ipairs(vim.split(args or "", "%s+", { trimempty = true })) do
    local value = word:match("^rag=(.*)$")
    if value then
      rag = rag or {}
      for _, name in ipairs(vim.split(value, ",", { trimempty = true })) do
        table.insert(rag, name)
      end
    else
      table.insert(rest, word)
    end
  end
  return rag, table.concat(rest, " ")
end

--- The `rag` request param: the explicit names, else the :RagUse choice, else nil (workspace).
---@param explicit string[]|nil
---@return string|string[]|nil
function M.param(explicit)
  local names = explicit or M.selected
  if not names or #names == 0 then
    return nil
  end
  return #names == 1 and names[1] or names
end

local function remember(result)
  M.known = {}
  for _, entry in ipairs(result or {}) do
    table.insert(M.known, entry.name)
  end
end

--- Command-line completion of `rag=NAME` (names from a quick synchronous rag/list, else the last one seen).
---@param arglead string
---@return string[]
function M.complete(arglead)
  if not vim.startswith(arglead, "rag") then
    return {}
  end
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  if client then
    local ok, res = pcall(function()
      return client:request_sync("rag/list", vim.empty_dict(), 1000)
    end)
    if ok and res and res.result then
      remember(res.result)
    end
  end
  local prefix = arglead:match("^rag=(.*,)") or ""
  local out = {}
  for _, name in ipairs(M.known) do
    local item = "rag=" .. prefix .. name
    if vim.startswith(item, arglead) then
      table.insert(out, item)
    end
  end
  return out
end

local function describe(entry)
  local text = ("%s  (%s, %s)"):format(entry.name, counted(entry.files or 0, "file"),
    counted(entry.chunks or 0, "section"))
  if entry.errors and #entry.errors > 0 then
    text = text .. "  ! " .. entry.errors[1].message
  end
  return text
end

--- :RagUse — pick the knowledge base later questions go to (vim.ui.select over rag/list).
function M.use()
  rpc.request("rag/list", vim.empty_dict(), function(result)
    remember(result)
    vim.ui.select(result or {}, { prompt = "ragls: ask which knowledge base?", format_item = describe },
      function(choice)
        if not choice then
          return
        end
        M.selected = choice.name == "workspace" and nil or { choice.name }
        rpc.notify("ragls: questions now go to " .. choice.name, vim.log.levels.INFO)
      end)
  end)
end

return M
