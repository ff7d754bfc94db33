---@mod ragls.status_view The :RagStatus float: a compact aligned layout, paths with ~, human times.

local M = {}
local one_line = require("ragls.text").one_line

--- Seconds since the epoch of an ISO 8601 UTC time ("2026-12-01T16:05:03.12+00:00"); nil when unparsable.
---@param iso any
---@return integer|nil
function M.parse_iso(iso)
  if type(iso) == "number" then
    return math.floor(iso)
  end
  if type(iso) ~= "string" then
    return nil
  end
  local y, mo, d, h, mi, sec = iso:match("^(%d+)-(%d+)-(%d+)[T ](%d+):(%d+):(%d+)")
  if not y then
    return nil
  end
  local t = os.time({ year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h),
    min = tonumber(mi), sec = tonumber(sec), isdst = false })
  -- os.time reads the table as local time: shift by the local offset from UTC.
  local now = os.time()
  local offset = os.time(os.date("*t", now)) - os.time(os.date("!*t", now))
  return t + offset
end

--- "just now", "5 min ago", "3 h ago", "2 days ago", or the date for older times; "never" for nil.
---@param iso any lastIndexedAt
---@param now? integer
---@return string
function M.human_time(iso, now)
  local t = M.parse_iso(iso)
  if not t then
    return (iso == nil or iso == vim.NIL) and "never" or tostring(iso)
  end
  local ago = (now or os.time()) - t
  if ago < 60 then
    return "just now"
  elseif ago < 3600 then
    return ("%d min ago"):format(math.floor(ago / 60))
  elseif ago < 86400 then
    return ("%d h ago"):format(math.floor(ago / 3600))
  elseif ago < 7 * 86400 then
    local days = math.floor(ago / 86400)
    return ("%d day%s ago"):format(days, days == 1 and "" or "s")
  end
  return os.date("%Y-%m-%d", t)
end

local function nonnil(v)
  return v ~= nil and v ~= vim.NIL and v or nil
end

--- What follows "embedding" (:RagStatus, :checkhealth) while the server's embedding model loads.
M.EMBEDDING_LOADING_NOTE = "model loading: keyword search meanwhile"

--- The embedding model as people need to know it: "all-MiniLM-L6-v2 (bundled fallback for BAAI/bge-small-en-v1.5)"
--- when the server fell back to its bundled model (rag/status `embeddingSource` "offline-fallback"), "X (not loaded
--- yet)" before the model loaded, else the name.
---@param status table rag/status result
---@return string
function M.embedding_label(status)
  local model = tostring(nonnil(status.embeddingModel) or "?")
  local source = nonnil(status.embeddingSource)
  if source == "offline-fallback" then
    local wanted = nonnil(status.embeddingRequested)
    return ("%s (bundled fallback%s)"):format(model, wanted and (" for " .. wanted) or "")
  elseif source == nil then
    return model .. " (not loaded yet)"
  end
  return model
end

--- What a folder's vector count means for people (after "embedding"), or nil when every chunk has its vectors:
--- "N of M chunks left (keyword search meanwhile)", or while the server's embedding model is still loading (rag/status
--- `embeddingLoading`: every chunk then counts in pendingVectors) that it is loading, with the chunks really left
--- to embed when the index recorded them (`storedPendingVectors`).
---@param folder table a rag/status folder
---@return string|nil
function M.vectors_phrase(folder)
  if folder.embeddingLoading == true then
    local stored = nonnil(folder.storedPendingVectors)
    local left = stored == nil and "" or stored == 0 and "; every chunk is embedded"
      or ("; %d chunk%s left to embed"):format(stored, stored == 1 and "" or "s")
    return M.EMBEDDING_LOADING_NOTE .. left
  end
  if (folder.pendingVectors or 0) > 0 then
    return ("%d of %d chunks left (keyword search meanwhile)"):format(folder.pendingVectors, folder.chunks or 0)
  end
  return nil
end

--- Lines of the :RagStatus summary: a compact aligned layout, paths with ~, human times.
---@param status table rag/status result
---@return string[]
function M.status_lines(status)
  local gen = status.generation or {}
  local backend = tostring(nonnil(gen.backend) or "?")
  local answers = backend == "none" and "none (extractive answers, no LLM)" or backend
  if nonnil(gen.model) then
    answers = answers .. " · " .. gen.model
  end
  local lines = {
    ("Answers    %s"):format(answers),
    "Embedding  " .. M.embedding_label(status),
    ("Store      %s"):format(tostring(nonnil(status.store) or "?")),
  }
  for _, folder in ipairs(status.folders or {}) do
    table.insert(lines, "")
    table.insert(lines, vim.fn.fnamemodify(vim.uri_to_fname(folder.uri), ":~"))
    local files, chunks = folder.files or 0, folder.chunks or 0
    table.insert(lines, ("  %d file%s · %d chunk%s · indexed %s"):format(files, files == 1 and "" or "s", chunks,
      chunks == 1 and "" or "s", M.human_time(nonnil(folder.lastIndexedAt))))
    if (folder.pending or 0) > 0 then
      table.insert(lines, ("  queued     %d file%s"):format(folder.pending, folder.pending == 1 and "" or "s"))
    end
    local vectors = M.vectors_phrase(folder)
    if vectors then
      table.insert(lines, "  embedding  " .. vectors)
    end
    table.insert(lines, "  index      " .. vim.fn.fnamemodify(tostring(nonnil(folder.indexPath) or "?"), ":~")
      .. (folder.writer == false and "  (read-only: another process holds the index lock)" or ""))
    local skipped = folder.skipped or {}
    if #skipped > 0 then
      table.insert(lines, ("  skipped    %d file%s:"):format(#skipped, #skipped == 1 and "" or "s"))
      for _, sk in ipairs(skipped) do
        table.insert(lines, ("    %s — %s"):format(one_line(sk.path), one_line(sk.reason)))
      end
    else
      table.insert(lines, "  skipped    none")
    end
  end
  local errors = status.errors or {}
  if #errors > 0 then
    vim.list_extend(lines, { "", "Errors" })
    for _, e in ipairs(errors) do
      local path = nonnil(e.path)
      table.insert(lines, "  " .. (path and (one_line(path) .. ": ") or "") .. one_line(e.message))
    end
  end
  return lines
end

---@param status table rag/status result
---@return integer bufnr
---@return integer winid
function M.show_status(status)
  local buf, win = require("ragls.ui").open_float(M.status_lines(status),
    { title = "ragls status", filetype = "ragls-status" })
  -- A long value (a model name with its fallback note, an index path) wraps under its value, not under the label:
  -- the labels are 11 columns wide ("Embedding  ", and "  embedding  " indented by 2 in a folder's rows).
  vim.wo[win].breakindent = true
  vim.wo[win].breakindentopt = "shift:11"
  -- As tall as its text (wrapped lines counted): no empty rows below a short status.
  require("ragls.ui").fit_float_height(win)
  return buf, win
end

return M
