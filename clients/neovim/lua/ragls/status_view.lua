---@mod ragls.status_view The :RagStatus float: a compact aligned layout, paths with ~, human times.

local M = {}
local one_line = require("ragls.text").one_line
local counted = require("ragls.text").counted
local wrap = require("ragls.text").wrap

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

--- What a folder's vector count means for people (after "embedding"), or nil when every section (chunk) has its
--- vectors: "N of M sections left (keyword search meanwhile)", or while the server's embedding model is still loading
--- (rag/status `embeddingLoading`: every section then counts in pendingVectors) that it is loading, with the
--- sections really left to embed when the index recorded them (`storedPendingVectors`). Once every section has its
--- first vector, the long sections whose later windows are still embedded (`pendingWindows`): "later parts of N of M
--- sections left (meaning search sees their start meanwhile)", so the folder does not read as done while they run.
---@param folder table a rag/status folder
---@return string|nil
function M.vectors_phrase(folder)
  if folder.embeddingLoading == true then
    local stored = nonnil(folder.storedPendingVectors)
    local left = stored == nil and "" or stored == 0 and "; every section is embedded"
      or ("; %s left to embed"):format(counted(stored, "section"))
    return M.EMBEDDING_LOADING_NOTE .. left
  end
  if (folder.pendingVectors or 0) > 0 then
    return ("%d of %s left (keyword search meanwhile)"):format(folder.pendingVectors, counted(folder.chunks or 0,
      "section"))
  end
  local windows = tonumber(nonnil(folder.pendingWindows)) or 0
  if windows > 0 then
    return ("later parts of %d of %s left (meaning search sees their start meanwhile)"):format(windows,
      counted(folder.chunks or 0, "section"))
  end
  return nil
end

--- rag/status `notices` sorted for people: the warnings about one folder ("<folder>: no file here matches
--- sources.include ...", docs/protocol.md), which need the user to act, by that folder's path and without it; the
--- others (e.g. the index keeps the model it was built with: nothing to do) as they are; the notes about one folder
--- (its pages that autodoc fills from docstrings) by its path. A notice is a warning when its `noticeLevels` entry
--- says "warning"; from an older server (no `noticeLevels`) when a folder's path leads it.
---@param status table rag/status result
---@return table<string, string[]> by_folder  folder path -> its warnings
---@return string[] others
---@return table<string, string[]> notes_by_folder  folder path -> its notes
function M.split_notices(status)
  local by_folder, others, notes_by_folder = {}, {}, {}
  local paths = {}
  for _, folder in ipairs(status.folders or {}) do
    table.insert(paths, vim.uri_to_fname(folder.uri))
  end
  local levels = type(nonnil(status.noticeLevels)) == "table" and status.noticeLevels or {}
  for i, notice in ipairs(nonnil(status.notices) or {}) do
    notice = tostring(notice)
    local owner
    for _, path in ipairs(paths) do
      if vim.startswith(notice, path .. ": ") and (not owner or #path > #owner) then
        owner = path
      end
    end
    local level = nonnil(levels[i])
    local warning = level == "warning" or (level == nil and owner ~= nil)
    if owner then
      local into = warning and by_folder or notes_by_folder
      into[owner] = into[owner] or {}
      table.insert(into[owner], notice:sub(#owner + 3))
    else
      table.insert(others, notice)
    end
  end
  return by_folder, others, notes_by_folder
end

--- rag/status `errors` split by their `severity` (docs/protocol.md, Clients): `warnings` need the user to decide
--- (an untrusted ragls.toml's ignored settings: nothing failed), `errors` are failures. An older server sends no
--- severity: all are errors.
---@param status table rag/status result
---@return table[] warnings
---@return table[] errors
function M.split_errors(status)
  local warnings, errors = {}, {}
  for _, e in ipairs(nonnil(status.errors) or {}) do
    table.insert(nonnil(e.severity) == "warning" and warnings or errors, e)
  end
  return warnings, errors
end

--- How a Neovim user trusts a folder's ragls.toml: in place of the end of an untrusted file's warning that says how
--- (rag/status errors `trustHow`: "read the file, then run `ragls trust DIR` to use them"), as |:RagTrust| asks.
M.TRUST_HOW = "read the file, then run :RagTrust to use them"

--- An `errors` entry as one line: its message, after its file unless the message already leads with it (an
--- untrusted ragls.toml's notice), its how-to-trust end (`trustHow`, newer servers) said the Neovim way (`TRUST_HOW`).
---@param e table {path?, message, trustHow?}
---@return string
function M.error_line(e)
  local path, message, how = nonnil(e.path), tostring(e.message), nonnil(e.trustHow)
  if type(how) == "string" and how ~= "" and vim.endswith(message, how) then
    message = message:sub(1, #message - #how) .. M.TRUST_HOW
  end
  if path and not vim.startswith(message, path) then
    return one_line(path) .. ": " .. one_line(message)
  end
  return one_line(message)
end

--- Why a folder's own LLM settings are not used (rag/status `generation.ignored`: its ragls.toml is not trusted), or
--- nil.
---@param status table rag/status result
---@return string|nil
function M.ignored_llm(status)
  local ignored = nonnil((status.generation or {}).ignored)
  return ignored and tostring(ignored) or nil
end

--- What the Answers row says after "none" when an untrusted folder named an LLM and its warning (an `errors` entry
--- of severity "warning", naming every ignored setting and how to trust the folder) is shown too; nil otherwise.
M.IGNORED_LLM_NOTE = "extractive answers: the folder's LLM settings wait until you trust it (:RagTrust); see the warning"

---@param status table rag/status result
---@return string|nil
function M.ignored_llm_note(status)
  return M.ignored_llm(status) and #M.split_errors(status) > 0 and M.IGNORED_LLM_NOTE or nil
end

--- Who writes the answers, as the Answers row of :RagStatus says it: "openai · gpt-4o-mini", "none (extractive
--- answers, no LLM)" (VS Code's answersLabel).
---@param status table rag/status result
---@return string
function M.answers_label(status)
  local gen = status.generation or {}
  local backend = tostring(nonnil(gen.backend) or "?")
  local note = M.ignored_llm_note(status)
  local answers = backend == "none" and ("none (%s)"):format(note or "extractive answers, no LLM") or backend
  return nonnil(gen.model) and (answers .. " · " .. gen.model) or answers
end

--- Lines of the :RagStatus summary: a compact aligned layout, paths with ~, human times. Warnings (a folder's
--- notice, LLM settings ignored) have their own rows; the other notices are under "Notes"; an indexing progress
--- under way (|ragls.progress|) is a "Progress" row.
---@param status table rag/status result
---@return string[] lines
---@return table<integer, string> highlights  0-based line -> highlight group (warnings, errors)
function M.status_lines(status)
  local trust_warnings, errors = M.split_errors(status)
  local lines = {
    ("Answers    %s"):format(M.answers_label(status)),
  }
  local marks = {}
  local function mark(group)
    marks[#lines - 1] = group
  end
  -- what to trust, said once: the untrusted ragls.toml's warning, else (an older server) its ignored LLM settings
  for _, e in ipairs(trust_warnings) do
    table.insert(lines, "Warning    " .. M.error_line(e))
    mark("DiagnosticWarn")
  end
  local ignored = M.ignored_llm(status)
  if ignored and not M.ignored_llm_note(status) then -- (the Answers row says it then)
    table.insert(lines, "Warning    " .. one_line(ignored))
    mark("DiagnosticWarn")
  end
  table.insert(lines, "Embedding  " .. M.embedding_label(status))
  if nonnil(status.embeddingSource) == "offline-fallback" then -- not the model configured: a warning, as in VS Code
    mark("DiagnosticWarn")
  end
  table.insert(lines, ("Store      %s"):format(tostring(nonnil(status.store) or "?")))
  -- The indexing under way, as the statusline says it: a folder's row says "indexed 3 min ago" from its first
  -- pass while steps 2 and 3 (the later windows, the answer sentences) still run, which rag/status does not count.
  for _, p in pairs(require("ragls.progress").active) do
    table.insert(lines, "Progress   " .. require("ragls.progress").text(p):gsub("^ragls:%s*", ""))
  end
  local by_folder, others, notes_by_folder = M.split_notices(status)
  for _, folder in ipairs(status.folders or {}) do
    table.insert(lines, "")
    local path = vim.uri_to_fname(folder.uri)
    table.insert(lines, vim.fn.fnamemodify(path, ":~"))
    table.insert(lines, ("  %s · %s · indexed %s"):format(counted(folder.files or 0, "file"),
      counted(folder.chunks or 0, "section"), M.human_time(nonnil(folder.lastIndexedAt))))
    for _, notice in ipairs(by_folder[path] or {}) do
      table.insert(lines, "  warning    " .. one_line(notice))
      mark("DiagnosticWarn")
    end
    for _, notice in ipairs(notes_by_folder[path] or {}) do -- nothing to act on now (its autodoc pages)
      table.insert(lines, "  note       " .. one_line(notice))
    end
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
    -- newer servers list the first 50 and count the rest (`skippedMore`): a folder of thousands of unreadable files
    local more = type(folder.skippedMore) == "number" and folder.skippedMore or 0
    if #skipped + more > 0 then
      local total = #skipped + more
      table.insert(lines, ("  skipped    %d file%s:"):format(total, total == 1 and "" or "s"))
      for _, sk in ipairs(skipped) do
        table.insert(lines, ("    %s — %s"):format(one_line(sk.path), one_line(sk.reason)))
      end
      if more > 0 then
        table.insert(lines, ("    … and %d more"):format(more))
      end
    else
      table.insert(lines, "  skipped    none")
    end
  end
  -- Labelled rows like the ones above ("Note       ", "Error      "), so a long one wraps under its own text: under
  -- a "Notes" heading its second line was indented 11 columns past its first (the float's 'breakindentopt').
  if #others > 0 then
    table.insert(lines, "")
    for _, notice in ipairs(others) do
      table.insert(lines, "Note       " .. one_line(notice))
    end
  end
  if #errors > 0 then
    table.insert(lines, "")
    for _, e in ipairs(errors) do
      table.insert(lines, "Error      " .. M.error_line(e))
      mark("DiagnosticError")
    end
  end
  return lines, marks
end

--- `lines` (and their `marks`, 0-based line -> highlight group) wrapped at spaces to `width` columns (text.wrap), a
--- labelled row's value ("Embedding  ", "  warning    ") wrapping under the value, any other row under its own text:
--- a model name or a glob never split at its "-" or "." as the window's 'linebreak' split it.
---@param lines string[]
---@param marks table<integer, string>
---@param width integer
---@return string[] lines
---@return table<integer, string> marks
function M.wrap_rows(lines, marks, width)
  local out, out_marks = {}, {}
  for i, line in ipairs(lines) do
    local value_at = #(line:match("^%s*%S+%s%s+") or line:match("^%s*"))
    if value_at > width / 2 then
      value_at = #line:match("^%s*")
    end
    for _, part in ipairs(wrap(line, width, value_at)) do
      table.insert(out, part)
      out_marks[#out - 1] = marks[i - 1]
    end
  end
  return out, out_marks
end

local ns = vim.api.nvim_create_namespace("ragls_status")

---@param status table rag/status result
---@return integer bufnr
---@return integer winid
function M.show_status(status)
  local ui = require("ragls.ui")
  local buf, win = ui.open_float(M.status_lines(status), { title = "ragls status", filetype = "ragls-status" })
  -- A word wider than the float (a long index path) still wraps, under its value: the labels are 11 columns wide
  -- ("Embedding  ", and "  embedding  " indented by 2 in a folder's rows).
  vim.wo[win].breakindent = true
  vim.wo[win].breakindentopt = "shift:11"
  local function footer() -- taller than the editor allows: "↓ N" at the border's left, as under a long answer
    ui.float_footer(win, function(width) return require("ragls.text").longest_fitting({ " q close " }, width) end, true)
  end
  local function render() -- at opening, and again at the float's new width when the editor is resized
    -- wrapped at spaces to the float's width, a long value under its value (wrap_rows)
    local lines, marks = M.status_lines(status)
    lines, marks = M.wrap_rows(lines, marks, vim.api.nvim_win_get_width(win))
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    for row, group in pairs(marks) do -- warnings and errors in the colours of diagnostics
      vim.api.nvim_buf_set_extmark(buf, ns, row, 0, { line_hl_group = group })
    end
    ui.fit_float_height(win) -- as tall as its text (wrapped lines counted): no empty rows below a short status
    footer()
  end
  render()
  ui.on_scroll(win, footer)
  ui.on_resize(win, render)
  return buf, win
end

return M
